import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Trace } from '../src/domain/index.js';
import { sampleTrace } from '../scripts/sample-trace.js';
import { bodyDigest, canonicalJson, chainHash, columnsOf, createPostgresTraceStore, createSqliteTraceStore, GENESIS_HASH, grantServiceRole, idRangeOf, PG_MIGRATIONS, SQLITE_MIGRATIONS, tombstoneOf, tombstonesDigest, type TraceStore } from '../src/trace/index.js';
import { tempDir } from './helpers.js';
import { testPostgresUrl, testPostgresUrlAs } from './postgres.js';


/** One backend under the contract: how to open a store on a fresh database, and how to reach it around the store. */
interface Backend {
  readonly name: string;
  /** A statement that switches the guard triggers off, as someone with the owner's rights would, and the findings it must cause. */
  readonly disarm: { readonly sql: string; readonly findings: readonly string[] };
  open(): Promise<{ store: () => Promise<TraceStore>; sql: (statement: string) => Promise<unknown> }>;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const sqlite: Backend = {
  name: 'SQLite',
  disarm: { sql: 'DROP TRIGGER traces_no_delete', findings: ['schema: trigger traces_no_delete is missing (dropped or renamed)'] },
  async open() {
    const file = path.join(await tempDir(), 'traces.sqlite');
    return {
      store: () => Promise.resolve(createSqliteTraceStore({ file })),
      sql: async (statement) => {
        await Promise.resolve();
        const db = new Database(file);
        try {
          return db.prepare(statement).run();
        } finally {
          db.close();
        }
      },
    };
  },
};

const postgres: Backend = {
  name: 'PostgreSQL',
  disarm: {
    sql: 'ALTER TABLE traces DISABLE TRIGGER ALL',
    findings: ['schema: trigger traces_no_update on traces is disabled', 'schema: trigger traces_no_delete on traces is disabled', 'schema: trigger traces_no_truncate on traces is disabled',
      'schema: trigger traces_append on traces is disabled',
    ],
  },
  async open() {
    const url = testPostgresUrl();
    const schema = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const service = `svc_${schema}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.query(`DROP OWNED BY ${service}; DROP ROLE ${service}`);
      await admin.end();
    });
    // As deployed: the owner (here the server's superuser) migrates and grants; the store runs as the service role.
    await (await createPostgresTraceStore({ url, schema })).close();
    await admin.query(`CREATE ROLE ${service} LOGIN PASSWORD 'pw-${service}'`);
    await grantServiceRole({ url, schema, role: service });
    return {
      store: () => createPostgresTraceStore({ url: testPostgresUrlAs(service), schema }),
      sql: async (statement) => admin.query(statement.replaceAll('traces', `${schema}.traces`)),
    };
  },
};

describe('a trace id prefix', () => {
  it('stands for a range that holds every id it begins, and no other (property)', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), fc.nat(36), (id, other, k) => {
        const { from, to } = idRangeOf(id.slice(0, k).toUpperCase());
        const within = (x: string): boolean => from <= x && x <= to;
        return within(id) && within(other) === other.startsWith(id.slice(0, k));
      }),
    );
  });

  it('is refused when no UUID begins so', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.nat(35), fc.constantFrom('g', 'z', ' ', '%', '_', "'"), (id, k, bad) => {
        expect(() => idRangeOf(id.slice(0, k) + bad)).toThrow(/cannot begin a trace id/u);
      }),
    );
  });
});

describe.each([sqlite, postgres])('TraceStore contract on $name', (backend) => {
  it('appends, reads back the same trace, and links each trace to the previous hash', async () => {
    const db = await backend.open();
    const store = await db.store();
    const a = await store.append(sampleTrace());
    const b = await store.append(sampleTrace({ outcome: 'clarify', reason: 'UNDERSPECIFIED' }));
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(a.prevHash).toBe(GENESIS_HASH);
    expect(b.prevHash).toBe(a.hash);
    expect(b.hash).toBe(chainHash(a.hash, bodyDigest(canonicalJson(b.trace))));
    expect((await store.get(a.trace.trace_id))?.trace).toEqual(a.trace);
    expect(await store.get(randomUUID())).toBeNull();
    expect(await store.head()).toEqual({ seq: 2, hash: b.hash });
    await store.close();
  });

  it('filters by outcome, reason, cited source and date, newest first, and pages', async () => {
    const store = await (await backend.open()).store();
    const cited = (source: string): Partial<Trace> => ({
      outcome: 'answer',
      reason: null,
      citations: [{ label: 'S1', source_id: source as never, revision: `sha256:${'a'.repeat(64)}` as never, version: '1', chunk_id: `sha256:${'a'.repeat(64)}#0-5` as never, text: 'hello' }],
    });
    await store.append(sampleTrace({ ...cited('harbor-lab-hours'), created_at: '2026-11-01T08:00:00.000Z' }));
    await store.append(sampleTrace({ ...cited('eastside-parking'), created_at: '2026-12-01T08:00:00.000Z' }));
    await store.append(sampleTrace({ created_at: '2026-12-02T08:00:00.000Z' }));
    expect((await store.list({ limit: 10, source: 'harbor-lab-hours' })).map((s) => s.seq)).toEqual([1]);
    expect((await store.list({ limit: 10, outcome: 'answer' })).map((s) => s.seq)).toEqual([2, 1]);
    expect((await store.list({ limit: 10, reason: 'NO_SUPPORT' })).map((s) => s.seq)).toEqual([3]);
    expect((await store.list({ limit: 10, from: '2026-12-01', to: '2026-12-02' })).map((s) => s.seq)).toEqual([2]);
    expect((await store.list({ limit: 2 })).map((s) => s.seq)).toEqual([3, 2]);
    expect((await store.list({ limit: 2, before: 2 })).map((s) => s.seq)).toEqual([1]);
    expect(await store.counts()).toEqual([
      { outcome: 'abstain', reason: 'NO_SUPPORT', count: 1 },
      { outcome: 'answer', reason: null, count: 2 },
    ]);
    await store.close();
  });

  it('finds traces by the first characters of their id, in any case, and refuses text no id begins with', async () => {
    const store = await (await backend.open()).store();
    const ids = ['abcd0000-0000-4000-8000-000000000001', 'abcd0000-0000-4000-8000-000000000002', 'abce0000-0000-4000-8000-000000000003'];
    for (const id of ids) await store.append(sampleTrace({ trace_id: id as Trace['trace_id'] }));
    const found = async (idPrefix: string): Promise<string[]> => (await store.list({ limit: 10, idPrefix })).map((s) => s.trace.trace_id).sort();
    expect(await found('abcd')).toEqual(ids.slice(0, 2));
    expect(await found('ABCD0000-0000-4000-8000-00000000000')).toEqual(ids.slice(0, 2));
    expect(await found(ids[1] ?? '')).toEqual([ids[1]]);
    expect(await found('abce')).toEqual([ids[2]]);
    expect(await found('abcf')).toEqual([]);
    for (const bad of ['abcz', 'abcd00000', "abcd' OR 1=1 --", `${ids[0] ?? ''}0`]) await expect(found(bad), bad).rejects.toThrow(/cannot begin a trace id/u);
    await store.close();
  });

  it('is refused UPDATE and DELETE by the database itself', async () => {
    const db = await backend.open();
    const store = await db.store();
    await store.append(sampleTrace());
    await expect(db.sql("UPDATE traces SET outcome = 'answer'")).rejects.toThrow(/append-only/u);
    await expect(db.sql('DELETE FROM traces')).rejects.toThrow(/append-only/u);
    expect((await store.list({ limit: 5 }))[0]?.trace.outcome).toBe('abstain');
    await store.close();
  });

  it('keeps one linear chain when two stores append concurrently', async () => {
    const db = await backend.open();
    const [one, two] = [await db.store(), await db.store()];
    await Promise.all(Array.from({ length: 40 }, (_v, i) => (i % 2 === 0 ? one : two).append(sampleTrace())));
    const rows = await one.scan({ afterSeq: 0, limit: 100 });
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_v, i) => i + 1));
    rows.forEach((row, i) => {
      expect(row.prevHash).toBe(i === 0 ? GENESIS_HASH : rows[i - 1]?.hash);
    });
    await one.close();
    await two.close();
  });

  it('purges old payloads while every link, digest and column stays, and refuses any other update', async () => {
    const db = await backend.open();
    const store = await db.store();
    const old1 = await store.append(sampleTrace({ created_at: '2026-01-01T00:00:00.000Z' }));
    const old2 = await store.append(sampleTrace({ created_at: '2026-02-01T00:00:00.000Z', outcome: 'answer', reason: null }));
    const fresh = await store.append(sampleTrace({ created_at: '2026-12-01T00:00:00.000Z' }));
    expect(await store.purge({ before: '2026-06-01T00:00:00.000Z', now: new Date('2026-12-02T00:00:00.000Z') })).toEqual({ purged: 2 });
    const rows = await store.scan({ afterSeq: 0, limit: 10 });
    expect(rows.map((r) => r.purged)).toEqual([true, true, false]);
    expect(rows.map((r) => [r.hash, r.prevHash, r.bodySha256])).toEqual([old1, old2, fresh].map((r) => [r.hash, r.prevHash, r.bodySha256]));
    expect(rows[0]?.body).not.toContain('Harbor');
    expect(JSON.parse(rows[1]?.body ?? '{}')).toMatchObject({ purged: true, outcome: 'answer', reason: null, trace_id: old2.trace.trace_id });
    expect((await store.get(old1.trace.trace_id))?.purged).toBe(true);
    expect(await store.purge({ before: '2026-06-01T00:00:00.000Z', now: new Date('2026-12-03T00:00:00.000Z') })).toEqual({ purged: 0 });
    expect(await store.purges()).toEqual([
      // Each purge commits to the tombstones it wrote, in seq order.
      { id: 1, purgedAt: '2026-12-02T00:00:00.000Z', before: '2026-06-01T00:00:00.000Z', traces: 2, tombstones: tombstonesDigest(rows.slice(0, 2).map((r) => r.body)) },
      { id: 2, purgedAt: '2026-12-03T00:00:00.000Z', before: '2026-06-01T00:00:00.000Z', traces: 0, tombstones: tombstonesDigest([]) },
    ]);
    await expect(db.sql(`UPDATE traces SET outcome = 'clarify' WHERE seq = 1`)).rejects.toThrow(/append-only/u);
    await expect(db.sql(`UPDATE traces SET hash = 'x' WHERE seq = 1`)).rejects.toThrow(/append-only/u);
    await store.close();
  });

  it('checks itself: no finding when intact, names guard triggers switched off', async () => {
    const db = await backend.open();
    const store = await db.store();
    await store.append(sampleTrace());
    expect(await store.selfCheck()).toEqual([]);
    await db.sql(backend.disarm.sql);
    expect(await store.selfCheck()).toEqual(backend.disarm.findings);
    await store.close();
  });

  it('refuses a trace that breaks the contract schema', async () => {
    const store = await (await backend.open()).store();
    await expect(store.append({ ...sampleTrace(), as_of: '2026-13-01' })).rejects.toThrow(/trace append failed/u);
    await store.close();
  });
});

describe('a store written before migration 3 (the hardened triggers)', () => {
  const old = sampleTrace({ created_at: '2026-01-01T00:00:00.000Z' });
  const body = canonicalJson(old);
  const digest = bodyDigest(body);
  const row = { ...old, body, body_sha256: digest, prev_hash: GENESIS_HASH, hash: chainHash(GENESIS_HASH, digest) };
  const purgedAt = '2026-02-01T00:00:00.000Z';

  it('SQLite: migrates in place, keeps its trace and purge, and ends with the schema of a new store', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const db = new Database(file);
    SQLITE_MIGRATIONS.slice(0, 2).forEach((sql) => db.exec(sql));
    db.pragma('user_version = 2');
    db.prepare(
      'INSERT INTO traces (trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash) VALUES (@trace_id, @created_at, @outcome, @reason, @role, @as_of, @body, @body_sha256, @prev_hash, @hash)',
    ).run(row);
    db.close();
    const store = createSqliteTraceStore({ file });
    expect(await store.selfCheck()).toEqual([]);
    expect(await store.purge({ before: '2026-01-02T00:00:00.000Z', now: new Date(purgedAt) })).toEqual({ purged: 1 });
    const appended = await store.append(sampleTrace());
    expect(appended.prevHash).toBe(row.hash);
    expect((await store.scan({ afterSeq: 0, limit: 5 })).map((r) => r.purged)).toEqual([true, false]);
    await store.close();
  });

  it('PostgreSQL: migrates in place, keeps its trace and legacy purge, and ends with the schema of a new store', async () => {
    const url = testPostgresUrl();
    const schema = `up_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await admin.connect();
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    });
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    for (const m of PG_MIGRATIONS.slice(0, 2)) {
      await admin.query(m.sql);
      await admin.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
    }
    await admin.query('INSERT INTO traces (seq, trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash) VALUES (1,$1,$2,$3,$4,$5,$6,$7,$8,$9,$10)', [
      row.trace_id, row.created_at, row.outcome, row.reason, row.role, row.as_of, row.body, row.body_sha256, row.prev_hash, row.hash,
    ]);
    // The purge as migration 2's code wrote it: tombstone first, then the record.
    await admin.query('UPDATE traces SET body = $1 WHERE seq = 1', [tombstoneOf(columnsOf(old), purgedAt)]);
    await admin.query('INSERT INTO purges (purged_at, before, traces) VALUES ($1, $2, 1)', [purgedAt, '2026-01-02T00:00:00.000Z']);
    const store = await createPostgresTraceStore({ url, schema });
    // One role for everything, as before issue 17: the schema is as new, and the missing service role is named.
    expect(await store.selfCheck()).toEqual([expect.stringMatching(/^roles: no role but the owner postgres \(or a superuser\) may append traces/u)]);
    expect(await store.purges()).toEqual([{ id: 1, purgedAt, before: '2026-01-02T00:00:00.000Z', traces: 1 }]);
    expect((await store.append(sampleTrace())).prevHash).toBe(row.hash);
    expect(await store.purge({ before: '2099-01-01T00:00:00.000Z', now: new Date('2026-12-02T00:00:00.000Z') })).toEqual({ purged: 1 });
    await store.close();
  });
});
