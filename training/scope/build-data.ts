/**
 * Writes the scope classifier's data set: the hand-written messages in data/ (with the support
 * judge's training questions at the time of scope v3, all administrative), augmented (see
 * data.ts), normalized exactly as the product normalizes a question, split 80/20 by a hash of the
 * base message so every variant stays on its base's side.
 *
 *   npx tsx training/scope/build-data.ts OUT.jsonl [--with FILE]... [--attach-admin]
 *
 * --with adds a data file outside data/ (same naming rules), a labelled message set (YAML, as
 * evaluate.ts reads it) or a `class<TAB>message` file of any class (.tsv); each row records its
 * source (the file name), which finetune.py balances on. A .tsv file goes to the training split
 * whole: its lines are translations of shared situations (multilingual/README.md), which a split by
 * message would leak into validation, and the thresholds stay calibrated on the English messages.
 * --attach-admin gives every message one more variant: an administrative message of the training
 * split attached before or after it (see attach in data.ts), keeping the message's class.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { normalizeQuestion } from '../../src/policy/index.js';
import { SCOPE_CLASSES, type ScopeClass } from '../../src/scope/index.js';
import { attach, augment, mulberry32, readLines, readMessageSet, splitByHash } from './data.js';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { with: { type: 'string', multiple: true, default: [] }, 'attach-admin': { type: 'boolean', default: false } } });
const out = positionals[0];
if (out === undefined) {
  console.error('usage: build-data.ts OUT.jsonl [--with FILE]... [--attach-admin]');
  process.exit(2);
}
const here = (p: string): string => new URL(p, import.meta.url).pathname;
const rand = mulberry32(7);
const bookings = readLines(here('data/booking-requests.txt'));
/**
 * data/<class>.txt and data/<class>-<anything>.txt hold messages of that class; data/urgent-*.txt
 * hold `emergency<TAB>message` or `crisis<TAB>message` lines; booking-requests.txt is the
 * augmentation list.
 */
interface Base {
  readonly text: string;
  readonly label: ScopeClass;
  readonly source: string;
  readonly trainOnly?: boolean;
}
function messagesOf(path: string): Base[] {
  const file = basename(path);
  const source = file.replace(/\.(txt|yaml|tsv)$/u, '');
  if (file.endsWith('.yaml')) {
    return readMessageSet(path).map((r) => ({ text: r.message.trim(), label: r.class, source }));
  }
  const lines = readLines(path);
  const tsv = file.endsWith('.tsv');
  if (tsv || file.startsWith('urgent-')) {
    const classes: readonly ScopeClass[] = tsv ? SCOPE_CLASSES : ['emergency', 'crisis'];
    return lines.map((line) => {
      const [label, text] = line.split('\t');
      if (!classes.includes(label as ScopeClass) || text === undefined) throw new Error(`${file}: not "class<TAB>message": ${line}`);
      return { text, label: label as ScopeClass, source, trainOnly: tsv };
    });
  }
  const label = SCOPE_CLASSES.find((c) => file === `${c}.txt` || file.startsWith(`${c}-`));
  if (label === undefined) throw new Error(`${file}: name it <class>.txt, <class>-<topic>.txt or urgent-<topic>.txt`);
  return lines.map((text) => ({ text, label, source }));
}
const files = readdirSync(here('data')).filter((f) => f.endsWith('.txt') && f !== 'booking-requests.txt').sort();
// data/admin-judge-questions.txt: the support judge's training questions as of commit 58b3a17 (scope v3) (appointment and
// policy questions, administrative by construction), frozen so that the judge's later data does not change this model.
const base: Base[] = [...files.map((f) => here(`data/${f}`)), ...args.with].flatMap(messagesOf);
const split = splitByHash(base.filter((r) => r.trainOnly !== true), 0.2);
const train = [...split.train, ...base.filter((r) => r.trainOnly === true)];
const { validation } = split;
const adminQuestions = train.filter((r) => r.label === 'admin').map((r) => r.text);
const variantsOf = (text: string): string[] => {
  const variants = augment(text, bookings, rand);
  return args['attach-admin'] ? [...variants, attach(text, adminQuestions, rand)] : variants;
};
const rows = [...train.map((r) => ({ ...r, split: 'train' })), ...validation.map((r) => ({ ...r, split: 'validation' }))].flatMap((r) =>
  variantsOf(r.text).map((variant) => ({ text: normalizeQuestion(variant).normalized, label: r.label, split: r.split, base: r.text, source: r.source })),
);
writeFileSync(out, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
console.log(`${base.length} base messages (${train.length} train, ${validation.length} validation) -> ${rows.length} rows in ${out}`);
