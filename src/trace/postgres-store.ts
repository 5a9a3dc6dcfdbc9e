import type pg from 'pg';
import { TraceSchema, wrapError } from '../domain/index.js';
import { bodyDigest, canonicalJson, chainHash, GENESIS_HASH } from './canonical.js';
import { columnsOf, storedFromRow, tombstoneOf, type OutcomeCount, type TraceRow, type TraceFilter, type TraceStore } from './store.js';

/**
 * Versioned migrations, applied in order inside one transaction each; `schema_migrations`
 * records what ran. Append-only is enforced by the database: triggers refuse UPDATE and DELETE,
 * and PUBLIC holds no UPDATE/DELETE grant.
 */
export const PG_MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE traces (
        seq         BIGINT PRIMARY KEY,
        trace_id    UUID NOT NULL UNIQUE,
        created_at  TIMESTAMPTZ NOT NULL,
        outcome     TEXT NOT NULL,
        reason      TEXT,
        role        TEXT NOT NULL,
        as_of       DATE NOT NULL,
        body        TEXT NOT NULL,
        body_sha256 TEXT NOT NULL,
        prev_hash   TEXT NOT NULL,
        hash        TEXT NOT NULL UNIQUE
      );
      CREATE INDEX traces_outcome ON traces (outcome, reason);
      CREATE INDEX traces_created ON traces (created_at);
      CREATE FUNCTION traces_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'traces are append-only: % refused', TG_OP; END $$;
      CREATE TRIGGER traces_no_update BEFORE UPDATE ON traces FOR EACH ROW EXECUTE FUNCTION traces_refuse_change();
      CREATE TRIGGER traces_no_delete BEFORE DELETE ON traces FOR EACH ROW EXECUTE FUNCTION traces_refuse_change();
      CREATE TRIGGER traces_no_truncate BEFORE TRUNCATE ON traces FOR EACH STATEMENT EXECUTE FUNCTION traces_refuse_change();
      REVOKE UPDATE, DELETE, TRUNCATE ON traces FROM PUBLIC;`,
  },
  {
    // Retention: the only UPDATE allowed replaces a payload by its tombstone and leaves every hash and column as it was.
    version: 2,
    sql: `
      CREATE TABLE purges (id BIGSERIAL PRIMARY KEY, purged_at TIMESTAMPTZ NOT NULL, before TIMESTAMPTZ NOT NULL, traces INTEGER NOT NULL);
      CREATE FUNCTION purges_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'purges are append-only: % refused', TG_OP; END $$;
      CREATE TRIGGER purges_no_change BEFORE UPDATE OR DELETE ON purges FOR EACH ROW EXECUTE FUNCTION purges_refuse_change();
      CREATE OR REPLACE FUNCTION traces_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'UPDATE' AND (NEW.body::jsonb ->> 'purged') = 'true' AND (OLD.body::jsonb ->> 'purged') IS NULL
             AND NEW.seq = OLD.seq AND NEW.trace_id = OLD.trace_id AND NEW.created_at = OLD.created_at
             AND NEW.outcome = OLD.outcome AND NEW.reason IS NOT DISTINCT FROM OLD.reason AND NEW.role = OLD.role
             AND NEW.as_of = OLD.as_of AND NEW.body_sha256 = OLD.body_sha256 AND NEW.prev_hash = OLD.prev_hash
             AND NEW.hash = OLD.hash THEN
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'traces are append-only: % refused', TG_OP;
        END $$;
      REVOKE UPDATE, DELETE, TRUNCATE ON purges FROM PUBLIC;`,
  },
];

/** Serializes appenders across every instance sharing the database: one linear chain, no forks. */
const CHAIN_LOCK = 0x63697465; // "cite"


/** The triggers that make both tables append-only: each must exist and be enabled. */
const GUARD_TRIGGERS = [
  ['traces', 'traces_no_update'],
  ['traces', 'traces_no_delete'],
  ['traces', 'traces_no_truncate'],
  ['purges', 'purges_no_change'],
] as const;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const COLUMNS = `seq, body, body_sha256, prev_hash, hash, trace_id::text AS trace_id, outcome, reason, role, as_of::text AS as_of,
  ${iso('created_at')} AS created_at`;

export async function migratePostgres(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [CHAIN_LOCK + 1]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of PG_MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
        await client.query('COMMIT');
        applied.push(m.version);
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [CHAIN_LOCK + 1]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/**
 * PostgreSQL trace store (`pg`), shared by several service instances. Appends take a transaction-
 * scoped advisory lock, read the chain head and insert in one transaction; `append` resolves
 * after COMMIT, which with the default synchronous_commit=on is flushed to the WAL on disk.
 */
export async function createPostgresTraceStore(options: { readonly url: string; readonly schema?: string; readonly migrate?: boolean }): Promise<TraceStore> {
  // `pg` loads when a PostgreSQL store is opened, not whenever the trace module is imported.
  const { default: postgres } = await import('pg');
  const pool = new postgres.Pool({
    connectionString: options.url,
    max: 8,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  try {
    if (options.migrate !== false) await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw wrapError('STORE_FAILURE', 'cannot prepare the PostgreSQL trace store', error);
  }
  const redacted = options.url.replace(/\/\/[^@/]*@/u, '//***@');

  return {
    id: `${redacted}${options.schema ? `#${options.schema}` : ''}`,
    async append(trace) {
      const parsed = TraceSchema.safeParse(trace);
      if (!parsed.success) throw wrapError('STORE_FAILURE', 'trace append failed', parsed.error);
      const body = canonicalJson(parsed.data);
      const bodySha256 = bodyDigest(body);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [CHAIN_LOCK]);
        const head = (await client.query<{ seq: string; hash: string }>('SELECT seq, hash FROM traces ORDER BY seq DESC LIMIT 1')).rows[0];
        const seq = head === undefined ? 1 : Number(head.seq) + 1;
        const prevHash = head?.hash ?? GENESIS_HASH;
        const hash = chainHash(prevHash, bodySha256);
        const t = parsed.data;
        await client.query(
          'INSERT INTO traces (seq, trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)',
          [seq, t.trace_id, t.created_at, t.outcome, t.reason, t.role, t.as_of, body, bodySha256, prevHash, hash],
        );
        await client.query('COMMIT');
        return { seq, trace: t, body, bodySha256, prevHash, hash, columns: columnsOf(t), purged: false };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw wrapError('STORE_FAILURE', 'trace append failed', error);
      } finally {
        client.release();
      }
    },
    async get(traceId) {
      if (!/^[0-9a-f-]{36}$/iu.test(traceId)) return null;
      const row = (await pool.query<TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE trace_id = $1`, [traceId])).rows[0];
      return row === undefined ? null : storedFromRow(row);
    },
    async list(filter: TraceFilter) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, value: unknown): void => {
        params.push(value);
        where.push(sql.replace('?', `$${params.length}`));
      };
      if (filter.outcome !== undefined) add('outcome = ?', filter.outcome);
      if (filter.reason !== undefined) add('reason = ?', filter.reason);
      if (filter.before !== undefined) add('seq < ?', filter.before);
      if (filter.source !== undefined) add("body::jsonb -> 'citations' @> jsonb_build_array(jsonb_build_object('source_id', ?::text))", filter.source);
      if (filter.from !== undefined) add('created_at >= ?', filter.from);
      if (filter.to !== undefined) add('created_at < ?', filter.to);
      params.push(filter.limit);
      const sql = `SELECT ${COLUMNS} FROM traces ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${params.length}`;
      return (await pool.query<TraceRow>(sql, params)).rows.map(storedFromRow);
    },
    async head() {
      const row = (await pool.query<{ seq: string; hash: string }>('SELECT seq, hash FROM traces ORDER BY seq DESC LIMIT 1')).rows[0];
      return row === undefined ? null : { seq: Number(row.seq), hash: row.hash };
    },
    async purge({ before, now }) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const rows = (await client.query<TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE created_at < $1 AND (body::jsonb ->> 'purged') IS NULL FOR UPDATE`, [before])).rows.map(storedFromRow);
        for (const row of rows) await client.query('UPDATE traces SET body = $1 WHERE seq = $2', [tombstoneOf(row.columns, now.toISOString()), row.seq]);
        await client.query('INSERT INTO purges (purged_at, before, traces) VALUES ($1, $2, $3)', [now.toISOString(), before, rows.length]);
        await client.query('COMMIT');
        return { purged: rows.length };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw wrapError('STORE_FAILURE', 'purge failed', error);
      } finally {
        client.release();
      }
    },
    async purges() {
      const rows = (await pool.query<{ id: string; purged_at: string; before: string; traces: number }>(`SELECT id, ${iso('purged_at')} AS purged_at, ${iso('before')} AS before, traces FROM purges ORDER BY id`)).rows;
      return rows.map((r) => ({ id: Number(r.id), purgedAt: r.purged_at, before: r.before, traces: r.traces }));
    },
    async selfCheck() {
      const version = (await pool.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0;
      const triggers = (
        await pool.query<{ table: string; name: string; enabled: string }>(
          `SELECT c.relname AS table, t.tgname AS name, t.tgenabled AS enabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
           WHERE c.relnamespace = to_regnamespace(current_schema())::oid AND NOT t.tgisinternal`,
        )
      ).rows;
      const latest = PG_MIGRATIONS.at(-1)?.version ?? 0;
      return [
        ...(version === latest ? [] : [`schema: version ${version}, expected ${latest}`]),
        ...GUARD_TRIGGERS.flatMap(([table, name]) => {
          const found = triggers.find((t) => t.table === table && t.name === name);
          if (found === undefined) return [`schema: trigger ${name} on ${table} is missing`];
          return found.enabled === 'D' ? [`schema: trigger ${name} on ${table} is disabled`] : [];
        }),
      ];
    },
    async counts(): Promise<readonly OutcomeCount[]> {
      const rows = (await pool.query<{ outcome: string; reason: string | null; count: string }>('SELECT outcome, reason, COUNT(*) AS count FROM traces GROUP BY outcome, reason ORDER BY outcome, reason')).rows;
      return rows.map((r) => ({ outcome: r.outcome, reason: r.reason, count: Number(r.count) }));
    },
    async scan({ afterSeq, limit }) {
      return (await pool.query<TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit])).rows.map(storedFromRow);
    },
    async close() {
      await pool.end();
    },
  };
}
