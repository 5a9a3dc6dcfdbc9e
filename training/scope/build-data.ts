/**
 * Writes the scope classifier's data set: the hand-written messages in data/ (plus the support
 * judge's training questions, all administrative), augmented (see
 * data.ts), normalized exactly as the product normalizes a question, split 80/20 by a hash of the
 * base message so every variant stays on its base's side.
 *
 *   npx tsx training/scope/build-data.ts OUT.jsonl
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { normalizeQuestion } from '../../src/policy/index.js';
import { SCOPE_CLASSES, type ScopeClass } from '../../src/scope/index.js';
import { augment, mulberry32, readLines, splitByHash } from './data.js';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: build-data.ts OUT.jsonl');
  process.exit(2);
}
const here = (p: string): string => new URL(p, import.meta.url).pathname;
const rand = mulberry32(7);
const bookings = readLines(here('data/booking-requests.txt'));
const judgeQuestions = [...new Set(readdirSync(here('../judge/systems'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readLines(here(`../judge/systems/${d.name}/pairs.jsonl`)).map((line) => (JSON.parse(line) as { question: string }).question)))];
const contrast = readLines(here('data/urgent-contrast.txt')).map((line): { text: string; label: ScopeClass } => {
  const [label, text] = line.split('\t');
  if ((label !== 'emergency' && label !== 'crisis') || text === undefined) throw new Error(`urgent-contrast.txt: not "class<TAB>message": ${line}`);
  return { text, label };
});
const base: { text: string; label: ScopeClass }[] = [
  ...SCOPE_CLASSES.flatMap((label) => readLines(here(`data/${label}.txt`)).map((text) => ({ text, label }))),
  ...readLines(here('data/admin-contrast.txt')).map((text) => ({ text, label: 'admin' as const })),
  ...contrast,
  // The support judge's training questions are all appointment and policy questions: administrative by construction.
  ...judgeQuestions.map((text) => ({ text, label: 'admin' as const })),
];
const { train, validation } = splitByHash(base, 0.2);
const rows = [...train.map((r) => ({ ...r, split: 'train' })), ...validation.map((r) => ({ ...r, split: 'validation' }))].flatMap((r) =>
  augment(r.text, bookings, rand).map((variant) => ({ text: normalizeQuestion(variant).normalized, label: r.label, split: r.split, base: r.text })),
);
writeFileSync(out, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
console.log(`${base.length} base messages (${train.length} train, ${validation.length} validation) -> ${rows.length} rows in ${out}`);
