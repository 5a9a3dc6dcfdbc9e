import { createHash } from 'node:crypto';
import os from 'node:os';
import { CitetraceError, wrapError } from '../domain/index.js';
import type { WriterLease } from './s3-location.js';

/** First key of the lease's advisory lock ("citx"); the trace chain's lock is another key. */
const LEASE_CLASS = 0x63697478;

/** The second key: 31 bits of the index location's sha256, so each index has its own lease. */
const leaseKey = (where: string): number => createHash('sha256').update(where).digest().readUInt32BE(0) & 0x7fffffff;

/**
 * The one-writer lease of an index on object storage: a session-level PostgreSQL advisory lock,
 * held by one connection for as long as the ingester runs. PostgreSQL releases it when that
 * connection ends, so a killed ingester frees it at once and a stuck one keeps it. A second
 * ingester is refused with one line naming the holder (INDEX_LEASED, exit 2). The lease is
 * checked again before each commit: if its connection was lost, nothing is committed.
 */
export async function acquireWriterLease(options: { readonly url: string; readonly where: string }): Promise<WriterLease> {
  const { default: postgres } = await import('pg');
  const holder = `citetrace ingester pid ${process.pid} on ${os.hostname()}`;
  const client = new postgres.Client({ connectionString: options.url, application_name: holder, keepAlive: true });
  let lost: unknown = null;
  client.on('error', (error) => {
    lost = error;
  });
  const key = leaseKey(options.where);
  try {
    await client.connect();
    const taken = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LEASE_CLASS, key])).rows[0]?.ok === true;
    if (!taken) {
      const other = (
        await client.query<{ name: string; since: string }>(
          `SELECT a.application_name AS name, to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.classid = $1 AND l.objid = $2 AND l.granted`,
          [LEASE_CLASS, key],
        )
      ).rows[0];
      const who = other === undefined || other.name === '' ? 'another ingester' : `${other.name} (since ${other.since})`;
      throw new CitetraceError('INDEX_LEASED', `the index ${options.where} is written by ${who}: one ingester writes an index (stop that one first)`);
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw wrapError('STORE_FAILURE', `cannot take the index writer lease in PostgreSQL`, error);
  }
  return {
    holder,
    async assertHeld() {
      const held =
        lost === null &&
        (await client
          .query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = $1 AND objid = $2 AND granted", [LEASE_CLASS, key])
          .then((r) => r.rows[0]?.n === 1)
          .catch(() => false));
      if (!held) throw new CitetraceError('INDEX_LEASED', `the writer lease on ${options.where} was lost (its PostgreSQL connection ended); nothing more is committed by ${holder}`);
    },
    async release() {
      await client.end().catch(() => undefined);
    },
  };
}
