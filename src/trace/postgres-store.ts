import { wrapError } from '../domain/index.js';
import { bodyDigest, canonicalJson, chainHash, GENESIS_HASH } from './canonical.js';
import { groupCommit } from './group-commit.js';
import { roleFindings } from './postgres-roles.js';
import { connectionConfig, migratePostgres, schemaFindings, type Connection } from './postgres-schema.js';
import { columnsOf, idRangeOf, purgeFromRow, storedFromRow, type OutcomeCount, type PurgeRow, type StoredTrace, type TraceRow, type TraceFilter, type TraceStore } from './store.js';

/** Serializes appenders across every instance sharing the database: one linear chain, no forks. */
const CHAIN_LOCK = 0x63697465; // "cite"

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const COLUMNS = `seq, body, body_sha256, prev_hash, hash, trace_id::text AS trace_id, outcome, reason, role, as_of::text AS as_of,
  ${iso('created_at')} AS created_at`;

/**
 * PostgreSQL trace store (`pg`), shared by several service instances. Appends take a transaction-
 * scoped advisory lock, read the chain head and insert in one transaction; `append` resolves
 * after COMMIT, which with the default synchronous_commit=on is flushed to the WAL on disk.
 * Appends are group-committed (`groupCommit`): one transaction, one WAL flush, for all that wait.
 */
export async function createPostgresTraceStore(options: Connection & { readonly migrate?: boolean }): Promise<TraceStore> {
  // `pg` loads when a PostgreSQL store is opened, not whenever the trace module is imported.
  const { default: postgres } = await import('pg');
  const pool = new postgres.Pool({ ...connectionConfig(options), max: 8 });
  try {
    if (options.migrate !== false) await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw wrapError('STORE_FAILURE', 'cannot prepare the PostgreSQL trace store', error);
  }
  const redacted = options.url.replace(/\/\/[^@/]*@/u, '//***@');

  /** One transaction: the chain head under the lock, then each trace chained to the one before. */
  const appendAll = async (traces: readonly StoredTrace['trace'][]): Promise<StoredTrace[]> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [CHAIN_LOCK]);
      const head = (await client.query<{ seq: string; hash: string }>('SELECT seq, hash FROM traces ORDER BY seq DESC LIMIT 1')).rows[0];
      let seq = head === undefined ? 0 : Number(head.seq);
      let prevHash = head?.hash ?? GENESIS_HASH;
      const stored: StoredTrace[] = [];
      for (const t of traces) {
        const body = canonicalJson(t);
        const bodySha256 = bodyDigest(body);
        const hash = chainHash(prevHash, bodySha256);
        seq += 1;
        await client.query(
          'INSERT INTO traces (seq, trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)',
          [seq, t.trace_id, t.created_at, t.outcome, t.reason, t.role, t.as_of, body, bodySha256, prevHash, hash],
        );
        stored.push({ seq, trace: t, body, bodySha256, prevHash, hash, columns: columnsOf(t), purged: false });
        prevHash = hash;
      }
      await client.query('COMMIT');
      return stored;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  const appends = groupCommit(appendAll);

  return {
    id: `${redacted}${options.schema ? `#${options.schema}` : ''}`,
    append: appends.append,
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
      if (filter.idPrefix !== undefined) {
        const ids = idRangeOf(filter.idPrefix);
        add('trace_id >= ?::uuid', ids.from);
        add('trace_id <= ?::uuid', ids.to);
      }
      params.push(filter.limit);
      const sql = `SELECT ${COLUMNS} FROM traces ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${params.length}`;
      return (await pool.query<TraceRow>(sql, params)).rows.map(storedFromRow);
    },
    async head() {
      const row = (await pool.query<{ seq: string; hash: string }>('SELECT seq, hash FROM traces ORDER BY seq DESC LIMIT 1')).rows[0];
      return row === undefined ? null : { seq: Number(row.seq), hash: row.hash };
    },
    async purge({ before, now }) {
      try {
        const rows = (await pool.query<{ n: number }>('SELECT traces_purge($1, $2) AS n', [before, now.toISOString()])).rows;
        return { purged: rows[0]?.n ?? 0 };
      } catch (error) {
        throw wrapError('STORE_FAILURE', 'purge failed', error);
      }
    },
    async purges() {
      return (await pool.query<PurgeRow>(`SELECT id, ${iso('purged_at')} AS purged_at, ${iso('before')} AS before, traces, tombstones FROM purges ORDER BY id`)).rows.map(purgeFromRow);
    },
    async selfCheck() {
      // The schema as the migrations create it, then who may do what to it (grant drift).
      return [...(await schemaFindings(pool)), ...(await roleFindings(pool))];
    },
    async counts(): Promise<readonly OutcomeCount[]> {
      const rows = (await pool.query<{ outcome: string; reason: string | null; count: string }>('SELECT outcome, reason, COUNT(*) AS count FROM traces GROUP BY outcome, reason ORDER BY outcome, reason')).rows;
      return rows.map((r) => ({ outcome: r.outcome, reason: r.reason, count: Number(r.count) }));
    },
    async scan({ afterSeq, limit }) {
      return (await pool.query<TraceRow>(`SELECT ${COLUMNS} FROM traces WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit])).rows.map(storedFromRow);
    },
    async close() {
      await appends.drained();
      await pool.end();
    },
  };
}
