/**
 * Vector search of one index through LanceDB and through the in-process structure
 * (src/index-store/memory-vectors.ts), interleaved question by question in one process, so the
 * machine's load falls on both alike: wall and CPU time per search (p50 / p95), and whether the two
 * returned the same passages in the same order with the same scores. Then full-text search the same
 * way: LanceDB's BM25 index (created on the data folder's passages table when it has none, with the
 * options ingest used until session 20; the committed snapshot is unchanged) queried as
 * citetrace queried it then, against citetrace's BM25 (src/index-store/memory-text.ts), counting
 * the searches whose passages are the same and those in the same order.
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
import { allowedFilter, allowedTop } from '../src/index-store/filters.js';
import { createEmbedder } from '../src/main.js';
import { lanceBm25, lanceBm25Table } from './lance-bm25.js';
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

// Full-text search: LanceDB's BM25 as citetrace ran it until session 20 (unfiltered top rows then
// the in-force filter when the allowed share is large, else prefiltered; at most 400 unfiltered).
const table = await lanceBm25Table(DATA);
const allowed = new Set<string>(revisions);
const scope = { allowed, share: revisions.length / Math.max(1, lance.revisions.size), filter: () => allowedFilter(revisions, null) };
const lanceText = async (question: string): Promise<string[]> => {
  const rows = await allowedTop(scope, LIMIT, 400, (n) => lanceBm25(table, question, n), (filter) => lanceBm25(table, question, LIMIT, filter));
  return rows.map((row) => String(row.chunk_id));
};
const ownText = async (question: string): Promise<string[]> => (await memory.textSearch({ query: question, revisions, limit: LIMIT })).map((m) => m.passage.chunkId);
const text = { lance: { ms: [] as number[], cpu: [] as number[] }, memory: { ms: [] as number[], cpu: [] as number[] } };
let sameSet = 0;
let sameOrder = 0;
for (const q of questions.slice(0, 3)) await Promise.all([lanceText(q), ownText(q)]);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const question of questions) {
    const order = round % 2 === 0 ? (['lance', 'memory'] as const) : (['memory', 'lance'] as const);
    const found: Record<string, string[]> = {};
    for (const path of order) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      found[path] = await (path === 'lance' ? lanceText : ownText)(question);
      text[path].ms.push(performance.now() - start);
      const used = process.cpuUsage(cpu);
      text[path].cpu.push((used.user + used.system) / 1000);
    }
    const [a, b] = [found.lance ?? [], found.memory ?? []];
    if (a.join() === b.join()) sameOrder += 1;
    if ([...a].sort().join() === [...b].sort().join()) sameSet += 1;
  }
}

const f = (xs: readonly number[]): string => `${percentile(xs, 50).toFixed(2)} / ${percentile(xs, 95).toFixed(2)}`;
const passages = (await Promise.all(revisions.map((r) => lance.passagesOf(r)))).reduce((n, ps) => n + ps.length, 0);
console.log(`vector search, top ${LIMIT} among ${passages} in-force passages (patient) of ${DATA}; ${questions.length} questions x ${ROUNDS} rounds, interleaved`);
console.log(`  LanceDB (${lance.vectorMethod})  wall p50 / p95 ${f(samples.lance.ms)} ms, CPU ${f(samples.lance.cpu)} ms`);
console.log(`  in process        wall p50 / p95 ${f(samples.memory.ms)} ms, CPU ${f(samples.memory.cpu)} ms`);
console.log(`  identical results: ${same} of ${questions.length * ROUNDS}`);
console.log(`full-text search, top ${LIMIT}, same questions, interleaved`);
console.log(`  LanceDB BM25       wall p50 / p95 ${f(text.lance.ms)} ms, CPU ${f(text.lance.cpu)} ms`);
console.log(`  citetrace BM25     wall p50 / p95 ${f(text.memory.ms)} ms, CPU ${f(text.memory.cpu)} ms`);
console.log(`  same passages: ${sameSet} of ${questions.length * ROUNDS}; same order: ${sameOrder} (LanceDB orders equal scores as its top-k heap leaves them)`);
console.log(`  ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')}`);
table.close();
lance.close();
memory.close();
