import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CitetraceError, wrapError } from '../domain/index.js';
import { bodyDigest, canonicalJson, chainHash, GENESIS_HASH } from './canonical.js';
import { groupCommit } from './group-commit.js';
import { columnsOf, idRangeOf, purgeFromRow, storedFromRow, tombstoneOf, tombstonesDigest, type PurgeRow, type StoredTrace, type TraceRow, type TraceFilter, type TraceStore } from './store.js';

const COLUMNS = 'seq, body, body_sha256, prev_hash, hash, trace_id, created_at, outcome, reason, role, as_of';

export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE traces (
     seq        INTEGER PRIMARY KEY AUTOINCREMENT,
     trace_id   TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     outcome    TEXT NOT NULL,
     reason     TEXT,
     role       TEXT NOT NULL,
     as_of      TEXT NOT NULL,
     body       TEXT NOT NULL,
     body_sha256 TEXT NOT NULL,
     prev_hash  TEXT NOT NULL,
     hash       TEXT NOT NULL UNIQUE
   );
   CREATE INDEX traces_outcome ON traces(outcome, reason);
   CREATE TRIGGER traces_no_update BEFORE UPDATE ON traces
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: UPDATE refused'); END;
   CREATE TRIGGER traces_no_delete BEFORE DELETE ON traces
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: DELETE refused'); END;`,
  // Retention: the only UPDATE allowed replaces a payload by its tombstone and leaves every hash and column as it was.
  `CREATE TABLE purges (
     id        INTEGER PRIMARY KEY AUTOINCREMENT,
     purged_at TEXT NOT NULL,
     before    TEXT NOT NULL,
     traces    INTEGER NOT NULL
   );
   CREATE TRIGGER purges_no_update BEFORE UPDATE ON purges BEGIN SELECT RAISE(ABORT, 'purges are append-only'); END;
   CREATE TRIGGER purges_no_delete BEFORE DELETE ON purges BEGIN SELECT RAISE(ABORT, 'purges are append-only'); END;
   DROP TRIGGER traces_no_update;
   CREATE TRIGGER traces_no_update BEFORE UPDATE ON traces
     WHEN NOT (json_extract(NEW.body, '$.purged') = 1 AND json_extract(OLD.body, '$.purged') IS NULL
       AND NEW.seq = OLD.seq AND NEW.trace_id = OLD.trace_id AND NEW.created_at = OLD.created_at
       AND NEW.outcome = OLD.outcome AND NEW.reason IS OLD.reason AND NEW.role = OLD.role AND NEW.as_of = OLD.as_of
       AND NEW.body_sha256 = OLD.body_sha256 AND NEW.prev_hash = OLD.prev_hash AND NEW.hash = OLD.hash)
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: UPDATE refused'); END;`,
  /*
   * Append-only with conditions that cannot be NULL (a NULL WHEN never fires a trigger, so every
   * condition is wrapped in coalesce(..., 1) and compares with IS). The one UPDATE allowed turns a
   * live trace created before the latest recorded purge's cutoff into exactly the tombstone of
   * that purge (the purge row is inserted first); every hash and column stays. REPLACE and
   * INSERT OR REPLACE delete the row they collide with without firing DELETE triggers, so an
   * INSERT must not collide and must extend the chain head.
   */
  `DROP TRIGGER traces_no_update;
   CREATE TRIGGER traces_no_update BEFORE UPDATE ON traces
     WHEN coalesce(NOT (json_extract(OLD.body, '$.purged') IS NULL
       AND NEW.seq IS OLD.seq AND NEW.trace_id IS OLD.trace_id AND NEW.created_at IS OLD.created_at
       AND NEW.outcome IS OLD.outcome AND NEW.reason IS OLD.reason AND NEW.role IS OLD.role AND NEW.as_of IS OLD.as_of
       AND NEW.body_sha256 IS OLD.body_sha256 AND NEW.prev_hash IS OLD.prev_hash AND NEW.hash IS OLD.hash
       AND OLD.created_at < (SELECT before FROM purges ORDER BY id DESC LIMIT 1)
       AND NEW.body IS json_object('as_of', OLD.as_of, 'created_at', OLD.created_at, 'outcome', OLD.outcome, 'purged', json('true'),
         'purged_at', (SELECT purged_at FROM purges ORDER BY id DESC LIMIT 1), 'reason', OLD.reason, 'role', OLD.role, 'trace_id', OLD.trace_id)), 1)
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: UPDATE refused'); END;
   CREATE TRIGGER traces_no_replace BEFORE INSERT ON traces
     WHEN coalesce(NOT (NEW.prev_hash IS coalesce((SELECT hash FROM traces ORDER BY seq DESC LIMIT 1), '${GENESIS_HASH}')
       AND NOT EXISTS (SELECT 1 FROM traces WHERE seq = NEW.seq OR trace_id = NEW.trace_id OR hash = NEW.hash)), 1)
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: an INSERT that replaces a trace or does not extend the chain is refused'); END;
   CREATE TRIGGER purges_no_replace BEFORE INSERT ON purges
     WHEN coalesce(EXISTS (SELECT 1 FROM purges WHERE id = NEW.id), 1)
     BEGIN SELECT RAISE(ABORT, 'purges are append-only'); END;`,
  /*
   * Audit of issue 17: a trace must take the next positive sequence number, with no gap. Checked
   * AFTER the INSERT, where NEW.seq is the number the row really got (BEFORE an INSERT that leaves
   * it to AUTOINCREMENT, NEW.seq is -1), so a row at seq <= 0 or beyond the head is refused; the
   * collision check no longer compares that -1 with stored rows. Each purge records the digest of
   * the tombstones it writes (tombstonesDigest), so what a tombstone keeps is committed to.
   */
  `DROP TRIGGER traces_no_replace;
   CREATE TRIGGER traces_no_replace BEFORE INSERT ON traces
     WHEN coalesce(NOT (NEW.prev_hash IS coalesce((SELECT hash FROM traces ORDER BY seq DESC LIMIT 1), '${GENESIS_HASH}')
       AND NOT EXISTS (SELECT 1 FROM traces WHERE (seq = NEW.seq AND NEW.seq >= 1) OR trace_id = NEW.trace_id OR hash = NEW.hash)), 1)
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: an INSERT that replaces a trace or does not extend the chain is refused'); END;
   CREATE TRIGGER traces_next_seq AFTER INSERT ON traces
     WHEN coalesce(NOT (NEW.seq >= 1 AND NEW.seq IS (SELECT max(seq) FROM traces)
       AND NEW.seq - 1 IS coalesce((SELECT max(seq) FROM traces WHERE seq < NEW.seq), 0)), 1)
     BEGIN SELECT RAISE(ABORT, 'traces are append-only: a trace must take the next positive sequence number'); END;
   ALTER TABLE purges ADD COLUMN tombstones TEXT;`,
];

/** What the migrations create, as sqlite_master lists it: the reference a stored schema is compared with. */
type SchemaObject = { readonly type: string; readonly name: string; readonly tbl_name: string; readonly sql: string | null };
const SCHEMA_QUERY = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name";
let expected: readonly SchemaObject[] | undefined;
function expectedSchema(): readonly SchemaObject[] {
  if (expected === undefined) {
    const db = new Database(':memory:');
    SQLITE_MIGRATIONS.forEach((sql) => db.exec(sql));
    expected = db.prepare<[], SchemaObject>(SCHEMA_QUERY).all();
    db.close();
  }
  return expected;
}

/** Differences between a stored schema and the one the migrations create: dropped, renamed, added or rewritten tables, indexes and triggers. */
function schemaDifferences(actual: readonly SchemaObject[]): string[] {
  const key = (o: SchemaObject): string => `${o.type} ${o.name}`;
  const stored = new Map(actual.map((o) => [key(o), o]));
  const reference = new Map(expectedSchema().map((o) => [key(o), o]));
  return [
    ...[...reference].flatMap(([name, want]) => {
      const got = stored.get(name);
      if (got === undefined) return [`schema: ${name} is missing (dropped or renamed)`];
      return got.sql === want.sql && got.tbl_name === want.tbl_name ? [] : [`schema: ${name} differs from the one the migrations create`];
    }),
    ...[...stored.keys()].filter((name) => !reference.has(name)).map((name) => `schema: unexpected ${name}`),
  ];
}

/** A statement prepared on first use: a store whose schema was tampered with still opens, so verification can name what is wrong. */
function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * A reader of a WAL database creates its -shm (and an empty -wal) beside it. When the store has
 * neither, no connection has it open (each keeps a -wal while open), so the file alone is the
 * whole store: a copy outside the data folder is read instead (null: read the file in place,
 * sharing the writers' -wal and -shm).
 */
function quiescentCopy(file: string): { readonly file: string; readonly dir: string } | null {
  if (['-wal', '-shm', '-journal'].some((suffix) => existsSync(`${file}${suffix}`))) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'citetrace-verify-'));
  const copy = path.join(dir, path.basename(file));
  copyFileSync(file, copy);
  return { file: copy, dir };
}

/**
 * SQLite trace store (better-sqlite3). WAL with synchronous=FULL: a committed trace survives a
 * process crash and a power loss. Appends run in BEGIN IMMEDIATE transactions, so concurrent
 * writers (threads or processes) extend one linear hash chain. `readonly` opens an existing file
 * without migrating or writing anything (verification); `existing` refuses to create one.
 */
export function createSqliteTraceStore(options: { readonly file: string; readonly readonly?: boolean; readonly existing?: boolean }): TraceStore {
  const readonly = options.readonly === true;
  let db: Database.Database;
  let snapshot: { readonly file: string; readonly dir: string } | null = null;
  if ((readonly || options.existing === true) && !existsSync(options.file)) throw new CitetraceError('BAD_INPUT', `no trace store at ${options.file}`);
  try {
    if (readonly) {
      snapshot = quiescentCopy(options.file);
      db = new Database(snapshot?.file ?? options.file, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 10000');
    } else {
      mkdirSync(path.dirname(options.file), { recursive: true });
      db = new Database(options.file);
      // The busy timeout first: switching to WAL and migrating take locks that concurrent openers wait for.
      db.pragma('busy_timeout = 10000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      const version = Number(db.pragma('user_version', { simple: true }));
      db.transaction(() => {
        SQLITE_MIGRATIONS.slice(version).forEach((sql) => db.exec(sql));
        db.pragma(`user_version = ${SQLITE_MIGRATIONS.length}`);
      }).immediate();
    }
  } catch (error) {
    throw wrapError('STORE_FAILURE', `cannot open trace store ${options.file}`, error);
  }
  const head = lazy(() => db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM traces ORDER BY seq DESC LIMIT 1'));
  const insert = lazy(() =>
    db.prepare(
      `INSERT INTO traces (trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash)
       VALUES (@trace_id, @created_at, @outcome, @reason, @role, @as_of, @body, @body_sha256, @prev_hash, @hash)`,
    ),
  );
  const byId = lazy(() => db.prepare<[string], TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE trace_id = ?`));
  const countRows = lazy(() =>
    db.prepare<[], { outcome: string; reason: string | null; count: number }>('SELECT outcome, reason, COUNT(*) AS count FROM traces GROUP BY outcome, reason ORDER BY outcome, reason'),
  );
  const purgeRows = db.transaction((before: string, purgedAt: string) => {
    const rows = db
      .prepare<[string], TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE created_at < ? AND json_extract(body, '$.purged') IS NULL ORDER BY seq`)
      .all(before)
      .map(storedFromRow)
      .map((row) => ({ seq: row.seq, tombstone: tombstoneOf(row.columns, purgedAt) }));
    // The purge is recorded first, with the digest of what it leaves: the UPDATE trigger admits only this purge's tombstones.
    db.prepare('INSERT INTO purges (purged_at, before, traces, tombstones) VALUES (?, ?, ?, ?)').run(purgedAt, before, rows.length, tombstonesDigest(rows.map((r) => r.tombstone)));
    const setBody = db.prepare('UPDATE traces SET body = ? WHERE seq = ?');
    for (const row of rows) setBody.run(row.tombstone, row.seq);
    return { purged: rows.length };
  });
  const scanRows = lazy(() => db.prepare<[number, number], TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE seq > ? ORDER BY seq LIMIT ?`));
  const appendOne = (trace: StoredTrace['trace']): StoredTrace => {
    const body = canonicalJson(trace);
    const bodySha256 = bodyDigest(body);
    const prevHash = head().get()?.hash ?? GENESIS_HASH;
    const hash = chainHash(prevHash, bodySha256);
    const info = insert().run({
      trace_id: trace.trace_id,
      created_at: trace.created_at,
      outcome: trace.outcome,
      reason: trace.reason,
      role: trace.role,
      as_of: trace.as_of,
      body,
      body_sha256: bodySha256,
      prev_hash: prevHash,
      hash,
    });
    return { seq: Number(info.lastInsertRowid), trace, body, bodySha256, prevHash, hash, columns: columnsOf(trace), purged: false };
  };
  const appendAll = db.transaction((traces: readonly StoredTrace['trace'][]) => traces.map(appendOne));
  const appends = groupCommit((traces) => appendAll.immediate(traces));
  /** Reads fail as a rejected promise (a STORE_FAILURE naming the cause), never as a throw. */
  const read = <T>(what: string, work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(wrapError('STORE_FAILURE', `cannot read ${what} from ${options.file}`, error));
    }
  };

  return {
    id: `sqlite:${path.resolve(options.file)}`,
    append: appends.append,
    get(traceId) {
      return read('a trace', () => {
        const row = byId().get(traceId);
        return row === undefined ? null : storedFromRow(row);
      });
    },
    list(filter: TraceFilter) {
      const conditions: Record<Exclude<keyof TraceFilter, 'limit'>, string> = {
        outcome: 'outcome = @outcome',
        reason: 'reason = @reason',
        before: 'seq < @before',
        source: "EXISTS (SELECT 1 FROM json_each(body, '$.citations') WHERE json_extract(value, '$.source_id') = @source)",
        from: 'created_at >= @from',
        to: 'created_at < @to',
        idPrefix: 'trace_id BETWEEN @idFrom AND @idTo',
      };
      const given = (Object.keys(conditions) as (keyof typeof conditions)[]).filter((key) => filter[key] !== undefined);
      const ids = filter.idPrefix === undefined ? null : idRangeOf(filter.idPrefix);
      const params = Object.fromEntries([['limit', filter.limit], ...given.map((key) => [key, filter[key]]), ...(ids === null ? [] : [['idFrom', ids.from], ['idTo', ids.to]])]) as Record<string, string | number>;
      const where = given.length > 0 ? `WHERE ${given.map((key) => conditions[key]).join(' AND ')}` : '';
      return read('traces', () => db.prepare<Record<string, string | number>, TraceRow>(`SELECT ${COLUMNS} FROM traces ${where} ORDER BY seq DESC LIMIT @limit`).all(params).map(storedFromRow));
    },
    head() {
      return read('the chain head', () => head().get() ?? null);
    },
    counts() {
      return read('counts', () => countRows().all());
    },
    purge({ before, now }) {
      try {
        return Promise.resolve(purgeRows.immediate(before, now.toISOString()));
      } catch (error) {
        return Promise.reject(wrapError('STORE_FAILURE', 'purge failed', error));
      }
    },
    purges() {
      return read('purges', () =>
        db.prepare<[], PurgeRow>('SELECT id, purged_at, before, traces, tombstones FROM purges ORDER BY id').all().map(purgeFromRow),
      );
    },
    selfCheck() {
      return read('the schema', () => {
        const version = Number(db.pragma('user_version', { simple: true }));
        // integrity_check, not quick_check: only the full check compares every index with its table (a swapped index entry serves another trace).
        const integrity = db.prepare<[], { integrity_check: string }>('PRAGMA integrity_check').all().map((r) => r.integrity_check).filter((r) => r !== 'ok');
        return [
          ...(version === SQLITE_MIGRATIONS.length ? [] : [`schema: version ${version}, expected ${SQLITE_MIGRATIONS.length} (pending migrations: run citetrace db migrate)`]),
          ...schemaDifferences(db.prepare<[], SchemaObject>(SCHEMA_QUERY).all()),
          ...integrity.map((problem) => `database: ${problem}`),
        ];
      });
    },
    scan({ afterSeq, limit }) {
      return read('traces', () => scanRows().all(afterSeq, limit).map(storedFromRow));
    },
    async close() {
      await appends.drained();
      db.close();
      if (snapshot !== null) rmSync(snapshot.dir, { recursive: true, force: true });
    },
  };
}
