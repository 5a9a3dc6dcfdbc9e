/**
 * What scope routing adds to a question, on this machine: the safety floor and the classifier head
 * over the question embedding that retrieval reuses (so the embedding itself is not counted), and,
 * for long messages, the extra embedding of their sentences.
 *
 *   npx tsx bench/scope.ts
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../src/config/index.js';
import { percentile } from '../src/eval/index.js';
import { createEmbedder, createScopeRouterFor } from '../src/main.js';
import { normalizeQuestion } from '../src/policy/index.js';

const fixtures = parse(readFileSync(new URL('../test/fixtures/scope-phrasings.yaml', import.meta.url), 'utf8')) as Record<string, string[]>;
const questions = Object.values(fixtures).flat().map((q) => normalizeQuestion(q).normalized);
const embedder = await createEmbedder(loadConfig({ env: process.env }));
const router = createScopeRouterFor({ organization: 'bench', appointment_channel: 'the appointment line', entities: {} }, embedder);
const vectors = await embedder.embed({ texts: questions });
const embed = (texts: readonly string[]) => embedder.embed({ texts });

async function measure(texts: readonly string[], rounds: number): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, text] of texts.entries()) {
      const vector = vectors[i % vectors.length];
      if (vector === undefined) continue;
      const start = performance.now();
      await router.route({ text, vector, embed });
      samples.push(performance.now() - start);
    }
  }
  return samples;
}

const fmt = (s: number[]): string => `p50 ${percentile(s, 50).toFixed(3)} ms, p95 ${percentile(s, 95).toFixed(3)} ms, n=${s.length}`;
await measure(questions, 1); // warm-up
console.log(`questions as asked (${questions.length} dev phrasings, floor + head, embedding reused): ${fmt(await measure(questions, 10))}`);
const long = questions.slice(0, 10).map((q) => `${'I have a question about parking at the clinic and whether the garage validates tickets. '.repeat(6)}${q}`);
console.log(`long messages (~100 words: sentences embedded and classified too): ${fmt(await measure(long, 3))}`);
