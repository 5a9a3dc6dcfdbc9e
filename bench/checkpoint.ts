/**
 * Signing cost per checkpoint (issue 17: < 1 ms). Signs the canonical JSON of a checkpoint with
 * Ed25519 (node:crypto) `--n` times and reports the median and p99 wall time of one signature and
 * the CPU time per signature (what the process itself spent, which other work on a shared machine
 * inflates far less than wall time); then the whole `writeCheckpoint` on a SQLite store (read the
 * head and purge records, sign, append the line and fsync it). Writes bench/results/checkpoint.json.
 * Run: npx tsx bench/checkpoint.ts [--n 5000]
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sampleTrace } from '../scripts/sample-trace.js';
import { createSqliteTraceStore, GENESIS_HASH, signCheckpoint, writeCheckpoint } from '../src/trace/index.js';

const at = process.argv.indexOf('--n');
const n = at > 0 ? Number(process.argv[at + 1]) : 5000;
const { privateKey } = generateKeyPairSync('ed25519');
const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

const body = { format: 1 as const, seq: 123_456, head: GENESIS_HASH, purges: 3, purges_digest: GENESIS_HASH, index: `42:${GENESIS_HASH}`, at: new Date().toISOString() };
for (let i = 0; i < 200; i += 1) signCheckpoint(body, privateKey); // warm-up
const wall: number[] = [];
const cpuStart = process.cpuUsage();
for (let i = 0; i < n; i += 1) {
  const started = performance.now();
  signCheckpoint({ ...body, seq: body.seq + i }, privateKey);
  wall.push(performance.now() - started);
}
const cpu = process.cpuUsage(cpuStart);
wall.sort((a, b) => a - b);
const sign = { n, p50_ms: quantile(wall, 0.5), p99_ms: quantile(wall, 0.99), cpu_ms_per_signature: (cpu.user + cpu.system) / 1000 / n };

const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-checkpoint-bench-'));
let write;
try {
  const store = createSqliteTraceStore({ file: path.join(dir, 'traces.sqlite') });
  for (let i = 0; i < 100; i += 1) await store.append(sampleTrace());
  const options = { privateKey, file: path.join(dir, 'checkpoints.jsonl'), every: 1000, indexDigest: () => Promise.resolve(null), clock: () => new Date() };
  const times: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const started = performance.now();
    await writeCheckpoint(store, options);
    times.push(performance.now() - started);
  }
  await store.close();
  times.sort((a, b) => a - b);
  write = { n: times.length, p50_ms: quantile(times, 0.5), p99_ms: quantile(times, 0.99) };
} finally {
  await rm(dir, { recursive: true, force: true });
}

const result = { at: new Date().toISOString(), load: os.loadavg(), node: process.version, sign, write_checkpoint_with_fsync: write };
console.log(
  `sign: p50 ${sign.p50_ms.toFixed(3)} ms, p99 ${sign.p99_ms.toFixed(3)} ms, CPU ${sign.cpu_ms_per_signature.toFixed(3)} ms per signature (${n}); ` +
    `writeCheckpoint (read head and purges, sign, append, fsync): p50 ${write.p50_ms.toFixed(2)} ms, p99 ${write.p99_ms.toFixed(2)} ms; load ${os.loadavg()[0]?.toFixed(1) ?? ''}`,
);
await mkdir(path.join(import.meta.dirname, 'results'), { recursive: true });
await writeFile(path.join(import.meta.dirname, 'results', 'checkpoint.json'), `${JSON.stringify(result, null, 2)}\n`);
if (sign.p50_ms >= 1) process.exitCode = 1;
