/**
 * The lexical support decision (src/cite/coverage.ts) on the judge's held-out pairs, as the
 * baseline in the same table as the trained judge: each question's candidate units are offered
 * together, as the product offers its passages, and a unit "answers" when the decision counts it
 * as addressing the question.
 *
 *   npx tsx training/judge/lexical-baseline.ts PAIRS.jsonl
 */
import { readFileSync } from 'node:fs';
import { decideSupport } from '../../src/cite/index.js';
import { ChunkIdSchema, RevisionIdSchema, SourceIdSchema, labelOf, type LabeledPassage } from '../../src/domain/index.js';
import { normalizeQuestion } from '../../src/policy/index.js';
import { questionFocus } from '../../src/text/index.js';

interface Pair {
  readonly question: string;
  readonly text: string;
  readonly label: 0 | 1;
  readonly kind: string;
  readonly split: string;
}
const file = process.argv[2];
if (file === undefined) {
  console.error('usage: lexical-baseline.ts PAIRS.jsonl');
  process.exit(2);
}
const pairs = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Pair).filter((p) => p.split === 'heldout');
const byQuestion = new Map<string, Pair[]>();
for (const p of pairs) byQuestion.set(p.question, [...(byQuestion.get(p.question) ?? []), p]);
const revision = RevisionIdSchema.parse(`sha256:${'0'.repeat(64)}`);
let tp = 0;
let fp = 0;
let fn = 0;
const kinds = new Map<string, { n: number; judged: number }>();
for (const [question, group] of byQuestion) {
  const offered: LabeledPassage[] = group.map((p, i) => {
    const colon = p.text.indexOf(': ');
    const title = p.text.slice(0, colon);
    const text = p.text.slice(colon + 2);
    return {
      label: labelOf(i),
      passage: { chunkId: ChunkIdSchema.parse(`${revision}#${i}-${i + text.length}`), revision, sourceId: SourceIdSchema.parse('baseline'), start: 0, end: text.length, text, headings: [] },
      revision: { revision, sourceId: SourceIdSchema.parse('baseline'), title, status: 'approved', effectiveDate: '2026-01-01', version: null, reviewBy: null, owner: null, audience: ['patient'], entities: {}, path: 'x.md', ingestSeq: 0 },
    };
  });
  const decision = decideSupport(questionFocus(normalizeQuestion(question).normalized), offered);
  group.forEach((p, i) => {
    const judged = decision.unnamed.length === 0 && decision.addressing.has(labelOf(i));
    if (judged && p.label === 1) tp += 1;
    if (judged && p.label === 0) fp += 1;
    if (!judged && p.label === 1) fn += 1;
    const k = kinds.get(p.kind) ?? { n: 0, judged: 0 };
    kinds.set(p.kind, { n: k.n + 1, judged: k.judged + Number(judged) });
  });
}
console.log(`lexical support decision on ${pairs.length} held-out pairs (${byQuestion.size} questions): precision ${(tp / Math.max(1, tp + fp)).toFixed(3)} recall ${(tp / Math.max(1, tp + fn)).toFixed(3)} (tp ${tp}, fp ${fp}, fn ${fn})`);
for (const [kind, k] of [...kinds].sort()) console.log(`  ${kind.padEnd(22)} n=${String(k.n).padStart(3)} judged answers ${String(k.judged).padStart(3)}`);
