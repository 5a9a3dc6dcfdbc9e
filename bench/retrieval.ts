/**
 * Retrieval quality and latency per retriever, side by side in one run: full-text only, vector
 * only and hybrid (RRF), each through the whole pipeline on the dev set (recall@1/3/5 and MRR of
 * the supporting revision, unsupported answers, wrong abstentions), then query latency of the
 * retriever alone (question embedding included) on the demo corpus and on a generated corpus of
 * about 10,000 passages. Prints tables, writes bench/results/retrieval.json.
 * Run: npx tsx bench/retrieval.ts [--passages 10000]
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.js';
import type { Embedder } from '../src/embed/index.js';
import { percentile, readCases, runEval } from '../src/eval/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { openPolicyIndex } from '../src/index-store/index.js';
import { createEmbedder, openRuntime } from '../src/main.js';
import { createHybridRetriever, type RetrievalMode } from '../src/retrieve/index.js';
import { createSqliteTraceStore } from '../src/trace/index.js';

const MODES: readonly RetrievalMode[] = ['fts', 'vector', 'hybrid'];
const arg = process.argv.indexOf('--passages');
const TARGET_PASSAGES = arg > 0 ? Number(process.argv[arg + 1]) : 10_000;
const root = fileURLToPath(new URL('..', import.meta.url));

async function latency(dataDir: string, embedder: Embedder, questions: readonly string[]): Promise<Record<string, { p50: number; p95: number }>> {
  const index = await openPolicyIndex({ dataDir });
  const out: Record<string, { p50: number; p95: number }> = {};
  for (const mode of MODES) {
    const retriever = createHybridRetriever({ index, embedder, mode });
    for (const q of questions.slice(0, 10)) await retriever.retrieve({ query: q, role: 'patient', asOf: '2026-12-02', entities: {}, limit: 8 });
    const samples: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const q of questions) {
        const start = performance.now();
        await retriever.retrieve({ query: q, role: 'patient', asOf: '2026-12-02', entities: {}, limit: 8 });
        samples.push(performance.now() - start);
      }
    }
    out[mode] = { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  }
  index.close();
  return out;
}

/** A generated policy repository: clinics x topics x revisions, each page several sections. */
async function generateCorpus(dir: string, targetPassages: number): Promise<void> {
  const topics = ['lab', 'parking', 'walk-in', 'imaging', 'billing', 'portal', 'pharmacy', 'vaccines', 'physical therapy', 'dermatology', 'cardiology', 'nutrition'];
  const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'assistant.yaml'), 'organization: Generated Health\nappointment_channel: "call 555-0100"\nentities:\n  clinic: {}\n');
  const sectionsPerPage = 8;
  const pages = Math.ceil(targetPassages / sectionsPerPage);
  for (let i = 0; i < pages; i += 1) {
    const topic = topics[i % topics.length] ?? 'lab';
    const site = `Site ${Math.floor(i / topics.length) + 1}`;
    const sections = Array.from({ length: sectionsPerPage }, (_v, s) => {
      const day = days[(i + s) % days.length] ?? 'Monday';
      return `## ${topic} rule ${s + 1}\nAt ${site}, the ${topic} desk is open on ${day} from ${7 + (s % 3)} am to ${3 + (s % 4)} pm. Patients who need ${topic} services should book through the portal or call 555-01${String(i % 100).padStart(2, '0')} at least ${1 + (s % 3)} days ahead; walk-ins are ${s % 2 === 0 ? 'welcome' : 'not accepted'} for ${topic} visits.`;
    });
    await writeFile(
      path.join(dir, `page-${i}.md`),
      `---\nsource_id: gen-${i}\ntitle: ${site} ${topic}\nstatus: approved\neffective_date: 2026-01-01\nversion: "1"\n---\n${sections.join('\n\n')}\n`,
    );
  }
}

const work = await mkdtemp(path.join(os.tmpdir(), 'citetrace-retrieval-'));
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: path.join(work, 'demo') } });
  const embedder = await createEmbedder(config);
  await ingestRepository({ root: path.join(root, 'corpus'), dataDir: config.dataDir, embedder, now: new Date() });
  const cases = await readCases(path.join(root, 'corpus', 'cases.yaml'));
  const runtime = await openRuntime({ config, embedder });
  const scratch = createSqliteTraceStore({ file: ':memory:' });
  const quality: Record<string, unknown>[] = [];
  for (const mode of MODES) {
    const report = await runEval({ cases, k: config.k, assistantFor: (k) => runtime.assistantWith({ k, retrievalMode: mode, store: scratch }), revisions: runtime.index.revisions });
    const m = report.metrics;
    quality.push({ mode, recall1: m.retrieval.recallAt['1'], recall3: m.retrieval.recallAt['3'], recall5: m.retrieval.recallAt['5'], mrr: m.retrieval.mrr, accuracy: m.outcomes.accuracy, unsupported: m.outcomes.unsupportedAnswers.length, wrongAbstentions: m.outcomes.wrongAbstentions.length });
  }
  await scratch.close();
  await runtime.close();
  const questions = cases.filter((c) => c.expect === 'answer').map((c) => c.question);
  const demoLatency = await latency(config.dataDir, embedder, questions);

  const genRepo = path.join(work, 'generated');
  await generateCorpus(genRepo, TARGET_PASSAGES);
  const genData = path.join(work, 'generated-index');
  const t0 = performance.now();
  const genReport = await ingestRepository({ root: genRepo, dataDir: genData, embedder, now: new Date() });
  const ingestSeconds = (performance.now() - t0) / 1000;
  const genLatency = await latency(genData, embedder, questions);

  const pct = (x: unknown): string => `${((x as number) * 100).toFixed(1)}%`;
  console.log(`dev set (${cases.length} cases), whole pipeline per retriever`);
  console.log('  retriever  recall@1  recall@3  recall@5  MRR    accuracy  unsupported  wrong abstentions');
  for (const q of quality) console.log(`  ${String(q.mode).padEnd(9)}  ${pct(q.recall1).padStart(8)}  ${pct(q.recall3).padStart(8)}  ${pct(q.recall5).padStart(8)}  ${(q.mrr as number).toFixed(3)}  ${pct(q.accuracy).padStart(8)}  ${String(q.unsupported).padStart(11)}  ${String(q.wrongAbstentions).padStart(17)}`);
  console.log(`retrieval latency, question embedding included (p50 / p95 ms); generated corpus: ${genReport.passagesAdded} passages, ingested in ${ingestSeconds.toFixed(1)} s`);
  for (const mode of MODES) console.log(`  ${mode.padEnd(9)}  demo ${demoLatency[mode]?.p50.toFixed(1)} / ${demoLatency[mode]?.p95.toFixed(1)}   generated ${genLatency[mode]?.p50.toFixed(1)} / ${genLatency[mode]?.p95.toFixed(1)}`);
  const out = path.join(root, 'bench', 'results');
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'retrieval.json'), `${JSON.stringify({ quality, demoLatency, generated: { passages: genReport.passagesAdded, ingestSeconds, latency: genLatency } }, null, 2)}\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}
