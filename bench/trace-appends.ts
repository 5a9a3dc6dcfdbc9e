/**
 * Trace appends per second on SQLite and PostgreSQL with 1, 8 and 32 concurrent writers, each
 * writer its own process (separate connections, as separate service instances would be), all
 * extending one hash chain; and one process with 32 appends in flight (one service under load,
 * where group commit batches them). Prints a table and writes bench/results/trace-appends.json.
 * Run: npx tsx bench/trace-appends.ts   (PostgreSQL when CITETRACE_TEST_PG=postgres://... is set)
 * bench/scale.ts imports measureAppends.
 */
import { fork } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { sampleTrace } from '../scripts/sample-trace.js';
import { createPostgresTraceStore, createSqliteTraceStore, type TraceStore } from '../src/trace/index.js';

const SECONDS = 5;
const WRITERS = [1, 8, 32];
const IN_FLIGHT = 32;


const open = (target: string, schema?: string): Promise<TraceStore> =>
  target.startsWith('postgres') ? createPostgresTraceStore({ url: target, ...(schema ? { schema } : {}) }) : Promise.resolve(createSqliteTraceStore({ file: target }));

// Child: append for SECONDS, report the count. Opening can meet another writer's migration
// transaction on a loaded machine: retry it; an append refused as busy is counted, not fatal.
if (process.argv[2] === 'writer') {
  let store: TraceStore | undefined;
  for (let attempt = 0; store === undefined; attempt += 1) {
    try {
      store = await open(process.argv[3] ?? '', process.argv[4] || undefined);
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const until = Date.now() + SECONDS * 1000;
  let n = 0;
  let busy = 0;
  const inFlight = Number(process.argv[5] ?? 1);
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) {
        try {
          await store.append(sampleTrace());
          n += 1;
        } catch {
          busy += 1;
        }
      }
    }),
  );
  await store.close();
  process.send?.({ n, busy });
  process.exit(0);
}

/** Appends per second with `writers` processes, each keeping `inFlight` appends in flight, extending one chain in `target` (SQLite file or postgres URL). */
export async function measureAppends(target: string, writers: number, schema = '', inFlight = 1): Promise<number> {
  const counts = await Promise.all(
    Array.from({ length: writers }, () =>
      new Promise<{ n: number; busy: number }>((resolve, reject) => {
        const child = fork(fileURLToPath(import.meta.url), ['writer', target, schema, String(inFlight)], { execArgv: ['--import', 'tsx'] });
        child.on('message', (m) => {
          resolve(m as { n: number; busy: number });
        });
        child.on('error', reject);
        child.on('exit', (code) => {
          if (code !== 0) reject(new Error(`append writer exited with ${String(code)}`));
        });
      }),
    ),
  );
  const busy = counts.reduce((a, c) => a + c.busy, 0);
  if (busy > 0) console.error(`${busy} append(s) refused as busy with ${writers} writers (not counted)`);
  return counts.reduce((a, c) => a + c.n, 0) / SECONDS;
}

/** Appends per second into a fresh SQLite file (WAL, synchronous=FULL), as `citetrace serve` writes. */
export async function measureSqliteAppends(writers: number): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-appends-'));
  try {
    const file = path.join(dir, 'traces.sqlite');
    await (await open(file)).close();
    return await measureAppends(file, writers);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results: { store: string; writers: number; in_flight: number; appends_per_second: number }[] = [];
  /** Process count and appends in flight per process: the writers as separate instances, then one loaded instance. */
  const runs = [...WRITERS.map((writers) => [writers, 1] as const), [1, IN_FLIGHT] as const];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-appends-'));
  try {
    for (const [writers, inFlight] of runs) {
      const file = path.join(dir, `traces-${writers}-${inFlight}.sqlite`);
      await (await open(file)).close();
      results.push({ store: 'sqlite (WAL, synchronous=FULL)', writers, in_flight: inFlight, appends_per_second: Math.round(await measureAppends(file, writers, '', inFlight)) });
    }
    const url = process.env.CITETRACE_TEST_PG;
    if (url !== undefined) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      for (const [writers, inFlight] of runs) {
        const schema = `bench_${writers}_${inFlight}_${Date.now()}`;
        await admin.query(`CREATE SCHEMA ${schema}`);
        await (await open(url, schema)).close();
        results.push({ store: 'postgresql (synchronous_commit=on)', writers, in_flight: inFlight, appends_per_second: Math.round(await measureAppends(url, writers, schema, inFlight)) });
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      }
      await admin.end();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`trace appends per second (${SECONDS} s per run, one hash chain, ${os.cpus().length} cores)`);
  for (const r of results) console.log(`  ${r.store.padEnd(36)} ${String(r.writers).padStart(2)} process(es) x ${String(r.in_flight).padStart(2)} in flight  ${String(r.appends_per_second).padStart(6)} /s`);
  const out = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'trace-appends.json'), `${JSON.stringify(results, null, 2)}\n`);
}

if (process.argv[2] !== 'writer' && process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
