/**
 * The long crash test (issue 17: 1,000 kill -9 cycles with 8 writers): 8 writer processes append
 * continuously, each signing a checkpoint after every 25th trace as the service does, while one
 * is killed with SIGKILL and replaced, `--cycles` times, on SQLite and on PostgreSQL (the server
 * named by CITETRACE_TEST_PG, else an embedded one started for the run, as `npm test` does; the
 * writers are killed, not the server). Prints how many traces were acknowledged, stored and
 * missing, whether the chain is one line and whether every signed checkpoint verifies and names
 * a head the chain still has; writes bench/results/crash.json. Exit 1 when anything was lost.
 * Run: npx tsx bench/crash.ts [--cycles 1000] [--stores sqlite,postgresql]
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { crashRun, type CrashResult } from '../scripts/crash-run.js';
import { createPostgresTraceStore, createSqliteTraceStore } from '../src/trace/index.js';
import { startPostgresForTests } from '../test/postgres-server.js';

const option = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const cycles = Number(option('--cycles', '1000'));
const stores = option('--stores', 'sqlite,postgresql').split(',');
const WRITERS = 8;
const EVERY = 25;

const results: Record<string, CrashResult & { readonly seconds: number }> = {};
const report = (name: string, r: CrashResult, seconds: number): void => {
  results[name] = { ...r, seconds };
  console.log(
    `${name.padEnd(11)} ${r.cycles} kills in ${seconds.toFixed(0)} s: ${r.acknowledged} acknowledged, ${r.stored} stored, ${r.missing.length} acknowledged but missing, ` +
      `chain ${r.chainProblems.length === 0 ? 'intact' : `BROKEN (${r.chainProblems[0] ?? ''})`}, ` +
      `${r.checkpoints} signed checkpoints ${r.checkpointProblems.length === 0 ? 'all valid' : `with ${r.checkpointProblems.length} problem(s) (${r.checkpointProblems[0] ?? ''})`}`,
  );
};
const timed = async (name: string, run: () => Promise<CrashResult>): Promise<void> => {
  const started = performance.now();
  const result = await run();
  report(name, result, (performance.now() - started) / 1000);
};

const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-crash-'));
try {
  if (stores.includes('sqlite')) {
    const file = path.join(dir, 'traces.sqlite');
    const signing = path.join(dir, 'sqlite-keys');
    await mkdir(signing);
    await createSqliteTraceStore({ file }).close();
    await timed('sqlite', () => crashRun({ target: file, writers: WRITERS, cycles, open: () => Promise.resolve(createSqliteTraceStore({ file })), signing: { dir: signing, every: EVERY } }));
  }
  if (stores.includes('postgresql')) {
    const server = await startPostgresForTests({ env: process.env });
    try {
      if ('error' in server.context) throw new Error(server.context.error);
      const url = server.context.url;
      const schema = `crash_${Date.now()}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await (await createPostgresTraceStore({ url, schema })).close();
      const signing = path.join(dir, 'pg-keys');
      await mkdir(signing);
      await timed('postgresql', () => crashRun({ target: url, schema, writers: WRITERS, cycles, open: () => createPostgresTraceStore({ url, schema }), signing: { dir: signing, every: EVERY } }));
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    } finally {
      await server.stop();
    }
  }
  await mkdir(path.join(import.meta.dirname, 'results'), { recursive: true });
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, r]) => [name, { cycles: r.cycles, writers: WRITERS, checkpoint_every: EVERY, seconds: Math.round(r.seconds), acknowledged: r.acknowledged, stored: r.stored, missing: r.missing.length, chain_problems: r.chainProblems.length, checkpoints: r.checkpoints, checkpoint_problems: r.checkpointProblems.length }]),
  );
  await writeFile(path.join(import.meta.dirname, 'results', 'crash.json'), `${JSON.stringify({ at: new Date().toISOString(), load: os.loadavg(), results: summary }, null, 2)}\n`);
  if (Object.values(results).some((r) => r.missing.length > 0 || r.chainProblems.length > 0 || r.checkpointProblems.length > 0 || r.checkpoints === 0)) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
