import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { chainHash, createPostgresTraceStore, createSqliteTraceStore, GENESIS_HASH, type TraceStore } from '../src/trace/index.js';
import { tempDir } from './helpers.js';
import { testPostgresUrl } from './postgres.js';

interface Backend {
  readonly name: string;
  /** A new, empty store, and how many transactions wrote its traces (rows written together share one). */
  open(): Promise<{ readonly store: TraceStore; readonly transactions: () => Promise<number>; readonly rows: () => Promise<number> }>;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const sqlite: Backend = {
  name: 'SQLite',
  async open() {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const count = (): number => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM traces').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    // SQLite keeps no transaction id per row; its batching is pinned by the order and chain below.
    return { store: createSqliteTraceStore({ file }), transactions: () => Promise.resolve(Number.NaN), rows: () => Promise.resolve(count()) };
  },
};

const postgres: Backend = {
  name: 'PostgreSQL',
  async open() {
    const schema = `gc_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    });
    const one = async (sql: string): Promise<number> => Number((await admin.query<{ n: string }>(sql)).rows[0]?.n);
    return {
      store: await createPostgresTraceStore({ url: testPostgresUrl(), schema }),
      // xmin is the id of the transaction that inserted the row.
      transactions: () => one(`SELECT COUNT(DISTINCT xmin::text) AS n FROM ${schema}.traces`),
      rows: () => one(`SELECT COUNT(*) AS n FROM ${schema}.traces`),
    };
  },
};

/** Appends that arrive together are committed together (one flush to disk), and none is acknowledged before that commit. */
describe.each([sqlite, postgres])('group commit on $name', (backend) => {
  it('acknowledges concurrent appends in order, each chained to the one before, all on disk', async () => {
    const { store, transactions, rows } = await backend.open();
    const traces = Array.from({ length: 40 }, () => sampleTrace());
    const stored = await Promise.all(traces.map((t) => store.append(t)));
    expect(stored.map((s) => s.trace.trace_id)).toEqual(traces.map((t) => t.trace_id));
    let previous = GENESIS_HASH;
    for (const [i, s] of stored.entries()) {
      expect(s.seq).toBe(i + 1);
      expect(s.prevHash).toBe(previous);
      expect(s.hash).toBe(chainHash(previous, s.bodySha256));
      previous = s.hash;
    }
    await store.close();
    // Every acknowledged trace is on disk, readable by another connection.
    expect(await rows()).toBe(40);
    const used = await transactions();
    if (!Number.isNaN(used)) expect(used).toBeLessThan(10);
  });

  it('fails only the trace that cannot be stored when a batch fails', async () => {
    const { store } = await backend.open();
    const first = sampleTrace();
    await store.append(first);
    const others = Array.from({ length: 5 }, () => sampleTrace());
    const results = await Promise.allSettled([store.append(others[0] ?? first), store.append(first), ...others.slice(1).map((t) => store.append(t))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((await store.head())?.seq).toBe(6);
    await store.close();
  });
});
