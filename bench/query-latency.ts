/**
 * Per-question latency of the whole pipeline (extractive generator, SQLite trace committed) on the
 * demo corpus, plus ingest time. Prints a table and writes bench/results/query-latency.json.
 * Run: npx tsx bench/query-latency.ts
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { createEmbedder, openRuntime } from '../src/main.js';

const QUESTIONS = [
  'Can I get blood drawn at the Harbor lab without an appointment?',
  'How late can I reschedule through the portal?',
  'What are your hours?',
  'How much is the no-show fee?',
  'Do you offer valet parking for helicopters?',
  'Is parking free at Harbor Clinic?',
  'Do I need a referral to see a specialist?',
  'How do I reset my portal password?',
  'What do I need to bring to my appointment?',
  'Can I get an interpreter for my visit?',
];
const ROUNDS = 20;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-bench-'));
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir } });
  const embedder = await createEmbedder(config);
  const corpus = fileURLToPath(new URL('../corpus', import.meta.url));
  const t0 = performance.now();
  const report = await ingestRepository({ root: corpus, dataDir, embedder, now: new Date() });
  const ingestMs = performance.now() - t0;
  const runtime = await openRuntime({ config, embedder });
  for (const question of QUESTIONS) await runtime.assistant.ask({ question, role: 'patient' }); // warm-up
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const question of QUESTIONS) {
      const start = performance.now();
      await runtime.assistant.ask({ question, role: 'patient' });
      samples.push(performance.now() - start);
    }
  }
  await runtime.close();
  samples.sort((a, b) => a - b);
  const result = {
    machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'cpu'}`,
    corpus: { revisions: report.revisionsPresent, passages: report.passagesAdded },
    ingest_ms: Math.round(ingestMs),
    questions: samples.length,
    ask_ms: { p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99) },
    rss_mb: Math.round(process.memoryUsage().rss / 1e6),
  };
  console.log('citetrace query latency (demo corpus, extractive generator, trace committed to SQLite)');
  console.log(`  corpus           ${result.corpus.revisions} revisions, ${result.corpus.passages} passages`);
  console.log(`  ingest           ${result.ingest_ms} ms (parse, chunk, embed, LanceDB commit)`);
  console.log(`  ask p50/p95/p99  ${result.ask_ms.p50.toFixed(1)} / ${result.ask_ms.p95.toFixed(1)} / ${result.ask_ms.p99.toFixed(1)} ms over ${result.questions} questions`);
  console.log(`  rss              ${result.rss_mb} MB`);
  const out = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'query-latency.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
