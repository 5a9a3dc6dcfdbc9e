/**
 * Scale-out (issue 20) on this machine: the deployment test:scale runs (s3rver as the object store,
 * PostgreSQL embedded or CITETRACE_TEST_PG, one `citetrace watch`, `citetrace serve` instances as
 * separate processes). Measures, and writes bench/results/scale-out.json:
 *  - propagation: `--rounds` policy commits through the watcher; per round the time from the commit
 *    until the slowest of 3 instances answers with the new revision; p50, p95, max;
 *  - kill -9: `--kills` times, 8 clients on one instance, SIGKILL after 20 acknowledged answers;
 *    acknowledged traces missing from the store (must be 0), and `verify --all` over every trace;
 *  - throughput: answered questions/s with 1, 2 and 3 instances, `--seconds` each, `--clients`
 *    clients spread round-robin over the instances (what a load balancer does).
 * The instances share this machine's 2 cores, so more instances add no CPU; the point is that
 * nothing serialises across instances except the trace store's appends.
 * Run: npx tsx bench/scale-out.ts [--rounds 20] [--kills 5] [--seconds 20] [--clients 24]
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { killUnderLoad, NO_SHOW_QUESTION, publishRevision, runCli, startCluster, type Cluster } from '../scripts/scale-cluster.js';
import { startPostgresForTests } from '../test/postgres-server.js';

const option = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1] ?? fallback) : fallback;
};
const ROUNDS = option('--rounds', 20);
const KILLS = option('--kills', 5);
const SECONDS = option('--seconds', 20);
const CLIENTS = option('--clients', 24);
const AS_OF = '2026-12-31';

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};

async function propagation(cluster: Cluster): Promise<{ p50: number; p95: number; max: number; rounds: number }> {
  const slowest: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const version = `2026-12-${String(round).padStart(2, '0')}`;
    const { answers } = await publishRevision(cluster, { version, fee: `$${100 + round}`, asOf: AS_OF });
    slowest.push(Math.max(...answers.map((a) => a.delayMs)));
    console.log(`propagation round ${round}: ${slowest.at(-1)?.toFixed(0) ?? ''} ms to all ${answers.length} instances`);
  }
  return { p50: quantile(slowest, 0.5), p95: quantile(slowest, 0.95), max: Math.max(...slowest), rounds: slowest.length };
}

async function kills(cluster: Cluster, dir: string): Promise<{ kills: number; acknowledged: number; lost: number; verify: number | null }> {
  let acknowledged = 0;
  let lost = 0;
  for (let k = 0; k < KILLS; k += 1) {
    const result = await killUnderLoad(cluster, { instance: k % cluster.instances.length, clients: 8, after: 20, asOf: AS_OF });
    acknowledged += result.acknowledged;
    lost += result.missing.length;
    console.log(`kill -9 #${k + 1}: ${result.acknowledged} acknowledged, ${result.missing.length} missing`);
  }
  const audit = runCli(['verify', '--all'], { ...cluster.env, CITETRACE_DATA: dir });
  const code = await audit.exited;
  console.log(`verify --all: exit ${code} ${audit.stdout().trim().split('\n').at(-1) ?? ''}`);
  return { kills: KILLS, acknowledged, lost, verify: code };
}

async function throughput(cluster: Cluster, instances: number, seconds: number): Promise<number> {
  const targets = cluster.instances.slice(0, instances);
  const deadline = performance.now() + seconds * 1000;
  let answered = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const instance = targets[c % targets.length];
      if (instance === undefined) return;
      while (performance.now() < deadline) {
        const { status } = await cluster.ask(instance, NO_SHOW_QUESTION, AS_OF);
        if (status === 200) answered += 1;
      }
    }),
  );
  return answered / seconds;
}

const pgServer = await startPostgresForTests({ env: process.env });
if ('error' in pgServer.context) throw new Error(pgServer.context.error);
const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-scale-bench-'));
const cluster = await startCluster({ dir, postgresUrl: pgServer.context.url, instances: 3 });
try {
  const propagated = await propagation(cluster);
  const killed = await kills(cluster, dir);
  const perInstances: Record<string, number> = {};
  for (const n of [1, 2, 3]) {
    await throughput(cluster, n, 3); // warm-up
    const rate = await throughput(cluster, n, SECONDS);
    perInstances[n] = rate;
    console.log(`throughput with ${n} instance(s): ${rate.toFixed(1)} answered questions/s (${CLIENTS} clients)`);
  }
  const result = { machine: { cores: os.availableParallelism(), load: os.loadavg().map((l) => Number(l.toFixed(1))), node: process.version }, propagation: propagated, kills: killed, throughput: { seconds: SECONDS, clients: CLIENTS, answeredPerSecond: perInstances } };
  await mkdir('bench/results', { recursive: true });
  await writeFile('bench/results/scale-out.json', `${JSON.stringify(result, null, 2)}\n`);
  console.log(`propagation to all instances: p50 ${propagated.p50.toFixed(0)} ms, p95 ${propagated.p95.toFixed(0)} ms, max ${propagated.max.toFixed(0)} ms over ${propagated.rounds} commits`);
  console.log(`traces lost under kill -9: ${killed.lost} of ${killed.acknowledged} acknowledged (${killed.kills} kills)`);
  if (killed.lost > 0 || killed.verify !== 0) process.exitCode = 1;
} finally {
  await cluster.close();
  await pgServer.stop();
  await rm(dir, { recursive: true, force: true });
}
