import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CORPUS, runBin, tempDir } from './helpers.js';
import { testPostgresUrl, testPostgresUrlAs } from './postgres.js';

describe('the pipeline on a PostgreSQL trace store, owner and service roles as documented (CLI)', () => {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const schema = `e2e_${id}`;
  const [owner, service] = [`e2eown_${id}`, `e2esvc_${id}`];
  let admin: pg.Client | undefined;
  let asOwner: Record<string, string>;
  let asService: Record<string, string>;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    for (const role of [owner, service]) await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw-${role}'`);
    await admin.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${owner}`);
    const urlOf = (role: string): string => {
      const url = new URL(testPostgresUrlAs(role));
      url.searchParams.set('options', `-c search_path=${schema}`);
      return url.toString();
    };
    const dataDir = await tempDir('citetrace-pg-');
    asOwner = { CITETRACE_DATA: dataDir, CITETRACE_TRACES: urlOf(owner) };
    asService = { CITETRACE_DATA: dataDir, CITETRACE_TRACES: urlOf(service) };
    expect((await runBin(['ingest', DEMO_CORPUS], asOwner)).code).toBe(0);
  });
  afterAll(async () => {
    // Only when beforeAll got as far as connecting: a missing server is reported there, not again here.
    if (admin === undefined) return;
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    for (const role of [service, owner]) await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    await admin.end();
  });

  it('migrates as the owner, grants the service role, stores asked traces as the service, verifies the chain and prints its head', async () => {
    expect((await runBin(['db', 'migrate'], asOwner)).stdout).toMatch(/trace store postgres:\/\/\*\*\*@/u);
    expect((await runBin(['db', 'grant', service], asOwner)).code).toBe(0);
    for (const q of ['How much is the no-show fee?', 'What are your hours?', 'I have chest pain']) expect((await runBin(['ask', q], asService)).code).toBe(0);
    const rows = await admin!.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.traces`);
    expect(rows.rows[0]?.n).toBe('3');
    const verified = await runBin(['verify', '--all'], asService);
    expect(verified.stdout).toMatch(/verified 3 trace\(s\): 3 ok, 0 failed/u);
    expect(verified.code).toBe(0);
    const head = await runBin(['chain', 'head'], asService);
    expect(head.stdout).toMatch(/^3 sha256:[0-9a-f]{64}\n$/u);
  }, 180_000);

  it('verify exits 1 naming a right an operator granted beyond INSERT and SELECT, and 0 again once revoked', async () => {
    await admin!.query(`GRANT UPDATE, DELETE ON ${schema}.traces TO ${service}`);
    try {
      const drifted = await runBin(['verify', '--all'], asService);
      expect(drifted.code).toBe(1);
      expect(drifted.stdout).toContain(`FAIL store: roles: ${service} may DELETE, UPDATE on traces (grant drift`);
    } finally {
      await admin!.query(`REVOKE UPDATE, DELETE ON ${schema}.traces FROM ${service}`);
    }
    expect((await runBin(['verify', '--all'], asService)).code).toBe(0);
  }, 120_000);
});
