/**
 * The long crash test: 8 writer processes append continuously while one is killed with SIGKILL
 * and replaced, 200 times, on SQLite and (when CITETRACE_TEST_PG is set) PostgreSQL. Prints how
 * many traces were acknowledged, stored and missing, and whether the chain is one line.
 * Run: npx tsx bench/crash.ts [--cycles 200]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { crashRun, type CrashResult } from '../scripts/crash-run.js';
import { createPostgresTraceStore, createSqliteTraceStore } from '../src/trace/index.js';

const arg = process.argv.indexOf('--cycles');
const cycles = arg > 0 ? Number(process.argv[arg + 1]) : 200;
const report = (name: string, r: CrashResult): void => {
  console.log(`${name.padEnd(11)} ${r.cycles} kills: ${r.acknowledged} acknowledged, ${r.stored} stored, ${r.missing.length} acknowledged but missing, chain ${r.chainProblems.length === 0 ? 'intact' : `BROKEN (${r.chainProblems[0] ?? ''})`}`);
};

const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-crash-'));
try {
  const file = path.join(dir, 'traces.sqlite');
  await createSqliteTraceStore({ file }).close();
  report('sqlite', await crashRun({ target: file, writers: 8, cycles, open: () => Promise.resolve(createSqliteTraceStore({ file })) }));
  const url = process.env.CITETRACE_TEST_PG;
  if (url !== undefined) {
    const schema = `crash_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await (await createPostgresTraceStore({ url, schema })).close();
    report('postgresql', await crashRun({ target: url, schema, writers: 8, cycles, open: () => createPostgresTraceStore({ url, schema }) }));
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
