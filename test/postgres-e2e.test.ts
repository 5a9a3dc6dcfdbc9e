import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CORPUS, runBin, tempDir } from './helpers.js';
import { testPostgresUrl } from './postgres.js';

describe('the pipeline on a PostgreSQL trace store (CLI)', () => {
  const schema = `e2e_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let admin: pg.Client | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    const pgUrl = testPostgresUrl();
    admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(pgUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env = { CITETRACE_DATA: await tempDir('citetrace-pg-'), CITETRACE_TRACES: url.toString() };
    expect((await runBin(['ingest', DEMO_CORPUS], env)).code).toBe(0);
  });
  afterAll(async () => {
    // Only when beforeAll got as far as connecting: a missing server is reported there, not again here.
    if (admin === undefined) return;
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('migrates, stores asked traces, verifies the chain and prints its head', async () => {
    expect((await runBin(['db', 'migrate'], env)).stdout).toMatch(/trace store postgres:\/\/\*\*\*@/u);
    for (const q of ['How much is the no-show fee?', 'What are your hours?', 'I have chest pain']) expect((await runBin(['ask', q], env)).code).toBe(0);
    const rows = await admin!.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.traces`);
    expect(rows.rows[0]?.n).toBe('3');
    const verified = await runBin(['verify', '--all'], env);
    expect(verified.stdout).toMatch(/verified 3 trace\(s\): 3 ok, 0 failed/u);
    const head = await runBin(['chain', 'head'], env);
    expect(head.stdout).toMatch(/^3 sha256:[0-9a-f]{64}\n$/u);
  });
});
