import { generateKeyPairSync, randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { checkpointEvidence, findingsOf, verifyTraces } from '../src/eval/index.js';
import type { Runtime } from '../src/main.js';
import { createPostgresTraceStore, grantServiceRole, readCheckpoints, withCheckpoints, type TraceStore } from '../src/trace/index.js';
import { demoRuntime, tempDir } from './helpers.js';
import { testPostgresUrl, testPostgresUrlAs } from './postgres.js';

/**
 * The purge part of the tamper suite on PostgreSQL (issue 17): a forged, erased, widened or
 * selective purge, made by the owner behind the triggers, through the one UPDATE the trigger
 * admits, or by the service role calling the purge function itself, is found by verify.
 */
describe('forged purges on PostgreSQL', () => {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const [owner, app] = [`ptown_${id}`, `ptapp_${id}`];
  const keys = generateKeyPairSync('ed25519');
  const schemas: string[] = [];
  let admin: pg.Client | undefined;
  let runtime: Runtime;
  let dataDir: string;

  beforeAll(async () => {
    ({ runtime, dataDir } = await demoRuntime());
    admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    for (const role of [owner, app]) await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw-${role}'`);
  });
  afterAll(async () => {
    await runtime.close();
    if (admin === undefined) return;
    for (const schema of schemas) await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    for (const role of [app, owner]) await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    await admin.end();
  });

  /**
   * A store as deployed (owner migrates and grants, the service appends with checkpoints): four traces an
   * hour apart, a checkpoint, then the service's own purge of the first, signed as it is made.
   */
  async function deployed(): Promise<{ schema: string; checkpoints: string; owner: (sql: string) => Promise<unknown>; service: () => Promise<TraceStore> }> {
    const schema = `pt_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    schemas.push(schema);
    await admin!.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${owner}`);
    await (await createPostgresTraceStore({ url: testPostgresUrlAs(owner), schema })).close();
    await grantServiceRole({ url: testPostgresUrlAs(owner), schema, role: app });
    const checkpoints = path.join(await tempDir(), 'checkpoints.jsonl');
    const signing = { privateKey: keys.privateKey, file: checkpoints, every: 1000, indexDigest: () => Promise.resolve(null), clock: () => new Date('2026-12-02T12:00:00.000Z') };
    const service = (): Promise<TraceStore> => createPostgresTraceStore({ url: testPostgresUrlAs(app), schema });
    const store = withCheckpoints(await service(), signing);
    for (let i = 0; i < 4; i += 1) await store.append(sampleTrace({ created_at: `2026-12-02T0${i}:00:00.000Z` }));
    await store.close();
    const again = withCheckpoints(await service(), signing);
    await again.purge({ before: '2026-12-02T00:30:00.000Z', now: new Date('2026-12-02T13:00:00.000Z') });
    await again.close();
    const ownerSql = async (sql: string): Promise<unknown> => {
      const client = new pg.Client({ connectionString: testPostgresUrlAs(owner), options: `-c search_path=${schema}` });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    };
    return { schema, checkpoints, owner: ownerSql, service };
  }

  /** verify --all --public-key, as the CLI runs it, connected as the service role. */
  async function verify(d: { checkpoints: string; service: () => Promise<TraceStore> }): Promise<string[]> {
    const store = await d.service();
    try {
      const signed = await checkpointEvidence({ lines: await readCheckpoints(d.checkpoints), file: d.checkpoints, publicKey: keys.publicKey, store, dataDir });
      const report = await verifyTraces({ store, index: runtime.index, dataDir, anchors: signed.anchors });
      return [...findingsOf(report), ...signed.findings];
    } finally {
      await store.close();
    }
  }

  const tombstone = (purgedAt: string): string => `traces_tombstone(traces, '${purgedAt}'::timestamptz)`;
  const behindTriggers = (table: string, sql: string): string => `ALTER TABLE ${table} DISABLE TRIGGER USER; ${sql}; ALTER TABLE ${table} ENABLE TRIGGER USER`;

  it('raises nothing on the deployed store with its signed purge', async () => {
    expect(await verify(await deployed())).toEqual([]);
  });

  const attacks: [string, (d: Awaited<ReturnType<typeof deployed>>) => Promise<unknown>, RegExp][] = [
    ['a tombstone written by the owner behind the triggers', (d) => d.owner(behindTriggers('traces', `UPDATE traces SET body = ${tombstone('2026-12-02T15:00:00.000Z')} WHERE seq = 3`)), /no purge was recorded then \(forged purge\)/u],
    ['a purge record erased by the owner behind its trigger', (d) => d.owner(behindTriggers('purges', 'DELETE FROM purges')), /no purge was recorded then \(forged purge\)[\s\S]*the first 1 purge record\(s\) differ from those signed|signed 1 purge record\(s\), the store holds 0/u],
    ['a purge record widened to claim more traces', (d) => d.owner(behindTriggers('purges', 'UPDATE purges SET traces = 2')), /purge #1 .* recorded 2 trace\(s\), but 1 stored record\(s\) carry its tombstone/u],
    [
      'a purge record added so that one chosen trace disappears through the UPDATE the trigger admits',
      (d) => d.owner(`INSERT INTO purges (purged_at, before, traces) VALUES ('2026-12-02T14:00:00.000Z', '2099-01-01', 1); UPDATE traces SET body = ${tombstone('2026-12-02T14:00:00.000Z')} WHERE seq = 3`),
      /purge #2 at 2026-12-02T14:00:00.000Z passed over trace #2/u,
    ],
    [
      'a retention purge made by the service role calling the purge function itself (a stolen password, no key)',
      async (d) => {
        const store = await d.service();
        await store.purge({ before: '2026-12-02T02:30:00.000Z', now: new Date('2026-12-02T16:00:00.000Z') });
        await store.close();
      },
      /purge #2 at 2026-12-02T16:00:00.000Z: no checkpoint was signed when it was made/u,
    ],
    // Audit finding 2: a fabricated trace at seq 0, linked to the head, put in by the owner behind the triggers.
    [
      'a trace inserted at seq 0 by the owner behind the triggers',
      (d) => d.owner(`ALTER TABLE traces DROP CONSTRAINT traces_seq_positive; ${behindTriggers('traces', `INSERT INTO traces SELECT 0, gen_random_uuid(), created_at, outcome, reason, role, as_of, body, body_sha256, 'x', 'sha256:fab' FROM traces WHERE seq = 2`)}; ALTER TABLE traces ADD CONSTRAINT traces_seq_positive CHECK (seq > 0) NOT VALID`),
      /trace #0 has a sequence number below 1/u,
    ],
    // Audit finding 7: a purged trace's retained role and outcome rewritten, column and tombstone alike.
    [
      "a purged trace's role and outcome rewritten by the owner",
      (d) => d.owner(behindTriggers('traces', "UPDATE traces SET role = 'staff', outcome = 'answer' WHERE seq = 1; UPDATE traces SET body = traces_tombstone(traces, '2026-12-02T13:00:00.000Z'::timestamptz) WHERE seq = 1")),
      /purge #1 at 2026-12-02T13:00:00.000Z: its tombstones differ from those it recorded/u,
    ],
  ];

  // Audit finding 2: the service role, with INSERT on traces, cannot put a trace outside the chain's numbering.
  it.each([0, -1, 9])('refuses the service role a trace at seq %i', async (seq) => {
    const d = await deployed();
    const client = new pg.Client({ connectionString: testPostgresUrlAs(app), options: `-c search_path=${d.schema}` });
    await client.connect();
    try {
      await expect(
        client.query(`INSERT INTO traces SELECT ${seq}, gen_random_uuid(), created_at, outcome, reason, role, as_of, body, body_sha256, (SELECT hash FROM traces ORDER BY seq DESC LIMIT 1), 'sha256:fab' FROM traces WHERE seq = 2`),
      ).rejects.toThrow(/append-only|traces_seq_positive/u);
    } finally {
      await client.end();
    }
    expect(await verify(d)).toEqual([]);
  });

  // Audit finding 8: a temporary table cannot stand in for the purge records inside the SECURITY DEFINER purge function.
  it('records a purge in the store, not in a temporary table named purges', async () => {
    const d = await deployed();
    const client = new pg.Client({ connectionString: testPostgresUrlAs(app), options: `-c search_path=${d.schema}` });
    await client.connect();
    try {
      await client.query('CREATE TEMP TABLE purges (id BIGSERIAL, purged_at TIMESTAMPTZ, before TIMESTAMPTZ, traces INTEGER, tombstones TEXT)');
      await client.query("SELECT traces_purge('2026-12-02T01:30:00Z', '2026-12-02T14:00:00Z')");
      expect((await client.query('SELECT * FROM pg_temp.purges')).rows).toEqual([]);
      expect((await client.query(`SELECT count(*)::int AS n FROM ${d.schema}.purges`)).rows[0]).toEqual({ n: 2 });
    } finally {
      await client.end();
    }
  });

  it.each(attacks)('finds %s', async (_name, attack, finding) => {
    const d = await deployed();
    await attack(d);
    const findings = await verify(d);
    expect(findings.join('\n')).toMatch(finding);
  });
});
