/**
 * Writes the scope classifier's data set: the hand-written messages in data/, augmented (see
 * data.ts), normalized exactly as the product normalizes a question, split 80/20 by a hash of the
 * base message so every variant stays on its base's side.
 *
 *   npx tsx training/scope/build-data.ts OUT.jsonl
 */
import { writeFileSync } from 'node:fs';
import { normalizeQuestion } from '../../src/policy/index.js';
import { SCOPE_CLASSES } from '../../src/scope/index.js';
import { augment, mulberry32, readLines, splitByHash } from './data.js';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: build-data.ts OUT.jsonl');
  process.exit(2);
}
const here = (p: string): string => new URL(p, import.meta.url).pathname;
const rand = mulberry32(7);
const bookings = readLines(here('data/booking-requests.txt'));
const base = SCOPE_CLASSES.flatMap((label) => readLines(here(`data/${label}.txt`)).map((text) => ({ text, label })));
const { train, validation } = splitByHash(base, 0.2);
const rows = [...train.map((r) => ({ ...r, split: 'train' })), ...validation.map((r) => ({ ...r, split: 'validation' }))].flatMap((r) =>
  augment(r.text, bookings, rand).map((variant) => ({ text: normalizeQuestion(variant).normalized, label: r.label, split: r.split, base: r.text })),
);
writeFileSync(out, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
console.log(`${base.length} base messages (${train.length} train, ${validation.length} validation) -> ${rows.length} rows in ${out}`);
