/**
 * Vector search of one index through LanceDB and through the in-process structure
 * (src/index-store/memory-vectors.ts), interleaved question by question in one process, so the
 * machine's load falls on both alike: wall and CPU time per search (p50 / p95), and whether the two
 * returned the same passages in the same order with the same scores.
 *
 * Run: npx tsx bench/search-paths.ts --data DIR [--rounds 5]   (DIR: an ingested data folder, e.g.
 * one kept by `bench/compare-llamaindex.ts --passages 10000 --data DIR`); questions of
 * bench/scale-corpus.ts for a generated index, the dev set's for the demo corpus.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.js';
import { percentile, readCases } from '../src/eval/index.js';
import { openPolicyIndex, type PolicyIndex } from '../src/index-store/index.js';
import { createEmbedder } from '../src/main.js';
import { scaleQuestions } from './scale-corpus.js';

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const DATA = argValue('--data');
if (DATA === undefined) throw new Error('usage: npx tsx bench/search-paths.ts --data DIR [--rounds 5]');
const ROUNDS = Number(argValue('--rounds') ?? 5);
const LIMIT = 20;
const root = fileURLToPath(new URL('..', import.meta.url));

const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: DATA } });
const embedder = await createEmbedder(config);
const [lance, memory] = await Promise.all([openPolicyIndex({ dataDir: DATA, inProcess: 'off' }), openPolicyIndex({ dataDir: DATA, inProcess: 'eager' })]);
const generated = lance.manifest.assistant.organization.startsWith('Generated');
const clinics = Object.values(lance.manifest.assistant.entities.clinic ?? {}).map((aliases) => aliases.at(-1) ?? 'Harbor');
const questions = generated
  ? scaleQuestions({ clinicNames: clinics })
  : (await readCases(path.join(root, 'corpus', 'cases.yaml'))).map((c) => c.question);
const vectors = await embedder.embed({ texts: questions });
const revisions = [...lance.inForce({ role: 'patient', asOf: '2026-12-02' }).values()].map((r) => r.revision);

const timed = async (index: PolicyIndex, vector: Float32Array) => {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const found = await index.vectorSearch({ vector, revisions, limit: LIMIT });
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpu: (used.user + used.system) / 1000, view: JSON.stringify(found.map((m) => [m.passage.chunkId, m.score])) };
};
const samples = { lance: { ms: [] as number[], cpu: [] as number[] }, memory: { ms: [] as number[], cpu: [] as number[] } };
let same = 0;
for (const v of vectors.slice(0, 3)) await Promise.all([lance.vectorSearch({ vector: v, revisions, limit: LIMIT }), memory.vectorSearch({ vector: v, revisions, limit: LIMIT })]);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const vector of vectors) {
    const order = round % 2 === 0 ? (['lance', 'memory'] as const) : (['memory', 'lance'] as const);
    const views: string[] = [];
    for (const path of order) {
      const r = await timed(path === 'lance' ? lance : memory, vector);
      samples[path].ms.push(r.ms);
      samples[path].cpu.push(r.cpu);
      views.push(r.view);
    }
    if (views[0] === views[1]) same += 1;
  }
}
const f = (xs: readonly number[]): string => `${percentile(xs, 50).toFixed(2)} / ${percentile(xs, 95).toFixed(2)}`;
const passages = (await Promise.all(revisions.map((r) => lance.passagesOf(r)))).reduce((n, ps) => n + ps.length, 0);
console.log(`vector search, top ${LIMIT} among ${passages} in-force passages (patient) of ${DATA}; ${questions.length} questions x ${ROUNDS} rounds, interleaved`);
console.log(`  LanceDB (${lance.vectorMethod})  wall p50 / p95 ${f(samples.lance.ms)} ms, CPU ${f(samples.lance.cpu)} ms`);
console.log(`  in process        wall p50 / p95 ${f(samples.memory.ms)} ms, CPU ${f(samples.memory.cpu)} ms`);
console.log(`  identical results: ${same} of ${questions.length * ROUNDS}`);
console.log(`  ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')}`);
lance.close();
memory.close();
