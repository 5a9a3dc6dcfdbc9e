import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { TraceSchema, wrapError } from '../domain/index.js';
import { bodyDigest, canonicalJson, chainHash, GENESIS_HASH } from './canonical.js';
import { columnsOf, storedFromRow, tombstoneOf, type StoredTrace, type TraceRow, type TraceFilter, type TraceStore } from './store.js';

const COLUMNS = 'seq, body, body_sha256, prev_hash, hash, trace_id, created_at, outcome, reason, role, as_of';

const MIGRATIONS: readonly string[] = [
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
];


/**
 * SQLite trace store (better-sqlite3). WAL with synchronous=FULL: a committed trace survives a
 * process crash and a power loss. Appends run in BEGIN IMMEDIATE transactions, so concurrent
 * writers (threads or processes) extend one linear hash chain.
 */
export function createSqliteTraceStore(options: { readonly file: string }): TraceStore {
  mkdirSync(path.dirname(options.file), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(options.file);
    // The busy timeout first: switching to WAL and migrating take locks that concurrent openers wait for.
    db.pragma('busy_timeout = 10000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const version = Number(db.pragma('user_version', { simple: true }));
    db.transaction(() => {
      MIGRATIONS.slice(version).forEach((sql) => db.exec(sql));
      db.pragma(`user_version = ${MIGRATIONS.length}`);
    }).immediate();
  } catch (error) {
    throw wrapError('STORE_FAILURE', `cannot open trace store ${options.file}`, error);
  }
  const head = db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM traces ORDER BY seq DESC LIMIT 1');
  const insert = db.prepare(
    `INSERT INTO traces (trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash)
     VALUES (@trace_id, @created_at, @outcome, @reason, @role, @as_of, @body, @body_sha256, @prev_hash, @hash)`,
  );
  const byId = db.prepare<[string], TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE trace_id = ?`);
  const countRows = db.prepare<[], { outcome: string; reason: string | null; count: number }>(
    'SELECT outcome, reason, COUNT(*) AS count FROM traces GROUP BY outcome, reason ORDER BY outcome, reason',
  );
  const setBody = db.prepare('UPDATE traces SET body = ? WHERE seq = ?');
  const purgeRows = db.transaction((before: string, purgedAt: string) => {
    const rows = db.prepare<[string], TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE created_at < ? AND json_extract(body, '$.purged') IS NULL`).all(before);
    for (const row of rows.map(storedFromRow)) setBody.run(tombstoneOf(row.columns, purgedAt), row.seq);
    db.prepare('INSERT INTO purges (purged_at, before, traces) VALUES (?, ?, ?)').run(purgedAt, before, rows.length);
    return { purged: rows.length };
  });
  const scanRows = db.prepare<[number, number], TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE seq > ? ORDER BY seq LIMIT ?`);
  const append = db.transaction((trace: StoredTrace['trace']) => {
    const body = canonicalJson(trace);
    const bodySha256 = bodyDigest(body);
    const prevHash = head.get()?.hash ?? GENESIS_HASH;
    const hash = chainHash(prevHash, bodySha256);
    const info = insert.run({
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
  });

  return {
    id: `sqlite:${path.resolve(options.file)}`,
    append(trace) {
      try {
        return Promise.resolve(append.immediate(TraceSchema.parse(trace)));
      } catch (error) {
        return Promise.reject(wrapError('STORE_FAILURE', 'trace append failed', error));
      }
    },
    get(traceId) {
      const row = byId.get(traceId);
      return Promise.resolve(row === undefined ? null : storedFromRow(row));
    },
    list(filter: TraceFilter) {
      const conditions: Record<Exclude<keyof TraceFilter, 'limit'>, string> = {
        outcome: 'outcome = @outcome',
        reason: 'reason = @reason',
        before: 'seq < @before',
        source: "EXISTS (SELECT 1 FROM json_each(body, '$.citations') WHERE json_extract(value, '$.source_id') = @source)",
        from: 'created_at >= @from',
        to: 'created_at < @to',
      };
      const given = (Object.keys(conditions) as (keyof typeof conditions)[]).filter((key) => filter[key] !== undefined);
      const params = Object.fromEntries([['limit', filter.limit], ...given.map((key) => [key, filter[key]])]) as Record<string, string | number>;
      const where = given.length > 0 ? `WHERE ${given.map((key) => conditions[key]).join(' AND ')}` : '';
      return Promise.resolve(db.prepare<Record<string, string | number>, TraceRow>(`SELECT ${COLUMNS} FROM traces ${where} ORDER BY seq DESC LIMIT @limit`).all(params).map(storedFromRow));
    },
    head() {
      return Promise.resolve(head.get() ?? null);
    },
    counts() {
      return Promise.resolve(countRows.all());
    },
    purge({ before, now }) {
      return Promise.resolve(purgeRows.immediate(before, now.toISOString()));
    },
    scan({ afterSeq, limit }) {
      return Promise.resolve(scanRows.all(afterSeq, limit).map(storedFromRow));
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}
