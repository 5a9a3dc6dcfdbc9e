/**
 * Issue 20: question analysis before routing (normalize, redact, normalize the stored form again, as `ask` does),
 * with the redactor reading every question with compromise's tagger (before session 27) and with the tagger read only
 * where it can find a name (`mayNameAPerson`), interleaved in one run on the same questions: the case questions of
 * every blind system in test/fixtures (each system's own site and organization names kept, as a deployment keeps them).
 *
 *   npx tsx bench/question-analysis.ts [--rounds 3]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { percentile } from '../src/eval/index.js';
import { normalizeQuestion } from '../src/policy/index.js';
import { createRedactor, mayNameAPerson } from '../src/trace/index.js';

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1] ?? 3) || 3;
const fixtures = new URL('../test/fixtures/', import.meta.url);
/** Each system's questions with the names its policies give (headings' capitalized runs stand in for assistant.yaml's entities). */
const systems = readdirSync(fixtures)
  .filter((d) => d.startsWith('blind-system-'))
  .map((d) => {
    const cases = parse(readFileSync(new URL(`${d}/cases.yaml`, fixtures), 'utf8')) as { question: string }[];
    const corpus = new URL(`${d}/corpus/`, fixtures);
    const titles = readdirSync(corpus, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .flatMap((f) => readFileSync(new URL(f, corpus), 'utf8').match(/^#+ .+$/gmu) ?? [])
      .flatMap((h) => h.match(/\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)+/gu) ?? []);
    const keep = [...new Set(titles)];
    return { questions: cases.map((c) => c.question), gated: createRedactor(keep), always: createRedactor(keep, { tagger: 'always' }) };
  });
const total = systems.reduce((n, s) => n + s.questions.length, 0);

const analyse = (redactor: (text: string) => { text: string }, q: string): string => normalizeQuestion(redactor(normalizeQuestion(q).original).text).normalized;
const samples = { always: [] as number[], gated: [] as number[] };
let differ = 0;
let skipped = 0;
for (let round = -1; round < ROUNDS; round += 1) {
  for (const s of systems) {
    for (const q of s.questions) {
      let start = performance.now();
      const a = analyse(s.always, q);
      const tAlways = performance.now() - start;
      start = performance.now();
      const b = analyse(s.gated, q);
      const tGated = performance.now() - start;
      if (round < 0) {
        // Warm-up round: count what the gate changes and how often it skips the tagger.
        if (a !== b) {
          differ += 1;
          console.log(`  differs: "${q}": "${a}" / "${b}"`);
        }
        if (!mayNameAPerson(normalizeQuestion(q).original)) skipped += 1;
        continue;
      }
      samples.always.push(tAlways);
      samples.gated.push(tGated);
    }
  }
}
const fmt = (xs: number[]): string => `p50 ${percentile(xs, 50).toFixed(3)} ms, p95 ${percentile(xs, 95).toFixed(3)} ms`;
console.log(`question analysis before routing, ${total} questions of ${systems.length} blind systems x ${ROUNDS} rounds`);
console.log(`  tagger on every question: ${fmt(samples.always)}`);
console.log(`  tagger where it can find a name: ${fmt(samples.gated)}  (ratio p50 ${(percentile(samples.always, 50) / percentile(samples.gated, 50)).toFixed(2)}x)`);
console.log(`  questions whose raw text closes the gate: ${skipped} of ${total}; analyses that differ: ${differ}`);
