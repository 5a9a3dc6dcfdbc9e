/**
 * What scope routing adds to a question on this machine: the safety floor and the fine-tuned
 * MiniLM classifier (int8 ONNX, one onnxruntime thread, as `serve` runs it). Long messages are
 * classified with their sentences and windows in one batch.
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
const router = await createScopeRouterFor({ organization: 'bench', appointment_channel: 'the appointment line', entities: {} }, loadConfig({ env: process.env }));

async function measure(texts: readonly string[], rounds: number): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const text of texts) {
      const start = performance.now();
      await router.route({ text });
      samples.push(performance.now() - start);
    }
  }
  return samples;
}

const fmt = (s: number[]): string => `p50 ${percentile(s, 50).toFixed(2)} ms, p95 ${percentile(s, 95).toFixed(2)} ms, n=${s.length}`;
const words = questions.map((q) => q.split(' ').length).sort((a, b) => a - b);
await measure(questions, 1); // warm-up
console.log(`questions as asked (${questions.length} dev phrasings, median ${words[Math.floor(words.length / 2)] ?? 0} words): ${fmt(await measure(questions, 5))}`);
const long = questions.slice(0, 10).map((q) => `${'I have a question about parking at the clinic and whether the garage validates tickets. '.repeat(6)}${q}`);
console.log(`long messages (~100 words, read with their sentences): ${fmt(await measure(long, 3))}`);
