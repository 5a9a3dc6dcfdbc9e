/**
 * What the support judge costs per question on this machine: the demo corpus's eval questions,
 * the passages the pipeline retrieves for them (k = 8 here, above the default 5), and the judge
 * reading at most N units of them, for several N (one onnxruntime thread, as `serve` runs it).
 * Prints p50/p95 per N and the units actually read; CITETRACE_JUDGE_UNITS sets the product's N.
 *
 *   npx tsx bench/judge.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { judgeSupport } from '../src/cite/index.js';
import { loadConfig } from '../src/config/index.js';
import { labelOf } from '../src/domain/index.js';
import { percentile, readCases } from '../src/eval/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { createEmbedder, loadShippedJudge } from '../src/main.js';
import { openPolicyIndex } from '../src/index-store/index.js';
import { mentionedEntities, normalizeQuestion } from '../src/policy/index.js';
import { createHybridRetriever } from '../src/retrieve/index.js';

const PASSAGES = 8;
const BUDGETS = [4, 8, 12, 16, 24, 200];
const corpus = fileURLToPath(new URL('../corpus', import.meta.url));
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-bench-judge-'));
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir } });
  const embedder = await createEmbedder(config);
  await ingestRepository({ root: corpus, dataDir, embedder, now: new Date() });
  const index = await openPolicyIndex({ dataDir });
  const retriever = createHybridRetriever({ index, embedder });
  const judge = await loadShippedJudge(config);
  const cases = (await readCases(path.join(corpus, 'cases.yaml'))).filter((c) => c.expect === 'answer' || c.expect === 'abstain');
  const asked = await Promise.all(
    cases.map(async (c) => {
      const question = normalizeQuestion(c.question).normalized;
      const mentioned = mentionedEntities(question, index.manifest.assistant);
      const hits = await retriever.retrieve({ query: question, role: c.role, asOf: '2026-12-02', entities: mentioned, limit: PASSAGES });
      return { question, mentioned, assistant: index.manifest.assistant, passages: hits.map((h, i) => ({ label: labelOf(i), passage: h.passage, revision: h.revision })) };
    }),
  );
  for (const a of asked.slice(0, 5)) await judgeSupport({ judge, ...a, maxUnits: 12 }); // warm-up
  console.log(`support judge ${judge.modelId} on ${asked.length} demo questions, up to ${PASSAGES} retrieved passages each`);
  for (const maxUnits of BUDGETS) {
    const samples: number[] = [];
    const read: number[] = [];
    for (const a of asked) {
      const start = performance.now();
      const decision = await judgeSupport({ judge, ...a, maxUnits });
      samples.push(performance.now() - start);
      read.push(decision.units.filter((u) => u.score !== null).length);
    }
    const mean = read.reduce((x, y) => x + y, 0) / read.length;
    console.log(`  at most ${String(maxUnits).padStart(3)} units: p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms (units read: mean ${mean.toFixed(1)}, max ${Math.max(...read)})`);
  }
  index.close();
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
