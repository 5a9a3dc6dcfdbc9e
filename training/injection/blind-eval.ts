/**
 * A written blind set (`positives.txt`: instructions addressed to a machine reader; `negatives.txt`:
 * 100 hard, then 100 ordinary policy lines) scored by the shipped detector, each line read as ingest
 * reads it: its score is the highest of the line and each of its sentences. Prints how many of each are
 * kept out of answers (answer threshold) and flagged at ingest (flag threshold); `--show` lists the
 * instructions that would reach an answer and the policy lines kept out. docs/injection.md reports each
 * blind set's one run.
 *
 *   npx tsx training/injection/blind-eval.ts SET_DIR [--show]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { shippedInjectionDetector } from '../../src/policy/index.js';
import { sentenceSpans } from '../../src/text/index.js';

const [set, flag] = process.argv.slice(2);
if (set === undefined) {
  console.error('usage: blind-eval.ts SET_DIR [--show]');
  process.exit(2);
}
const detector = shippedInjectionDetector();
const score = (line: string): number => Math.max(detector.score(line), ...sentenceSpans(line).map((s) => detector.score(line.slice(s.start, s.end))));
const lines = (file: string): string[] => readFileSync(path.join(set, file), 'utf8').split('\n').filter((l) => l.trim() !== '');
const [instructions, policy] = [lines('positives.txt'), lines('negatives.txt')];
const [pos, neg] = [instructions.map(score), policy.map(score)];
const at = (scores: readonly number[], threshold: number): number => scores.filter((s) => s >= threshold).length;
const split = (threshold: number): string => `hard ${at(neg.slice(0, 100), threshold)}, ordinary ${at(neg.slice(100), threshold)}`;
console.log(`${detector.modelId}: answer threshold ${detector.answerThreshold}, flag threshold ${detector.threshold}`);
console.log(`  kept out of answers: instructions ${at(pos, detector.answerThreshold)}/${pos.length}, policy lines ${at(neg, detector.answerThreshold)}/${neg.length} (${split(detector.answerThreshold)})`);
console.log(`  flagged at ingest:   instructions ${at(pos, detector.threshold)}/${pos.length}, policy lines ${at(neg, detector.threshold)}/${neg.length} (${split(detector.threshold)})`);
if (flag === '--show') {
  pos.forEach((s, i) => { if (s < detector.answerThreshold) console.log(`  reaches an answer ${s.toFixed(2)}: ${instructions[i] ?? ''}`); });
  neg.forEach((s, i) => { if (s >= detector.answerThreshold) console.log(`  policy line kept out ${s.toFixed(2)}: ${policy[i] ?? ''}`); });
}
