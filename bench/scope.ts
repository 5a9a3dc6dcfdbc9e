/**
 * What scope routing adds to a question on this machine: the safety floor and the fine-tuned
 * MiniLM classifiers (int8 ONNX, one onnxruntime thread each, on the inference thread as `serve`
 * runs them), the shipped router against the first classifier alone. Long messages are classified
 * with their sentences and windows in one batch.
 *
 *   npx tsx bench/scope.ts
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../src/config/index.js';
import { percentile } from '../src/eval/index.js';
import { createScopeRouterFor } from '../src/main.js';
import { normalizeQuestion } from '../src/policy/index.js';

const fixtures = parse(readFileSync(new URL('../test/fixtures/scope-phrasings.yaml', import.meta.url), 'utf8')) as Record<string, string[]>;
const questions = Object.values(fixtures).flat().map((q) => normalizeQuestion(q).normalized);
const assistant = { organization: 'bench', appointment_channel: 'the appointment line', entities: {} };
const config = loadConfig({ env: process.env });
/** The shipped router (P, and the second classifier that can only add an urgent routing), and P alone as its peer. */
const routers = { shipped: await createScopeRouterFor(assistant, config), first: await createScopeRouterFor(assistant, config, { urgentReader: null }) };

/** Each message routed by both routers in turn, so load falls on both alike. */
async function measure(texts: readonly string[], rounds: number): Promise<{ shipped: number[]; first: number[] }> {
  const samples = { shipped: [] as number[], first: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    for (const text of texts) {
      for (const which of ['shipped', 'first'] as const) {
        const start = performance.now();
        await routers[which].route({ text });
        samples[which].push(performance.now() - start);
      }
    }
  }
  return samples;
}

const fmt = (s: number[]): string => `p50 ${percentile(s, 50).toFixed(2)} ms, p95 ${percentile(s, 95).toFixed(2)} ms, n=${s.length}`;
const report = (label: string, s: { shipped: number[]; first: number[] }): void => {
  console.log(`${label}: shipped (both classifiers) ${fmt(s.shipped)}; the first classifier alone ${fmt(s.first)}; ratio p50 ${(percentile(s.shipped, 50) / percentile(s.first, 50)).toFixed(2)}x`);
};
const words = questions.map((q) => q.split(' ').length).sort((a, b) => a - b);
await measure(questions, 1); // warm-up
report(`questions as asked (${questions.length} dev phrasings, median ${words[Math.floor(words.length / 2)] ?? 0} words)`, await measure(questions, 5));
const long = questions.slice(0, 10).map((q) => `${'I have a question about parking at the clinic and whether the garage validates tickets. '.repeat(6)}${q}`);
report('long messages (~100 words, read with their sentences)', await measure(long, 3));
