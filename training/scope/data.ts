import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { SCOPE_CLASSES, type ScopeClass } from '../../src/scope/index.js';
export { prng as mulberry32 } from '../../bench/scale-corpus.js';

/** A labelled message set (YAML: a list of {id, class, message}, as evaluate.ts reads it). */
export function readMessageSet(file: string): { readonly class: ScopeClass; readonly message: string }[] {
  const rows = parse(readFileSync(file, 'utf8')) as { class: ScopeClass; message: string }[];
  if (!Array.isArray(rows) || rows.some((r) => !SCOPE_CLASSES.includes(r.class) || typeof r.message !== 'string')) throw new Error(`${basename(file)}: not a list of {id, class, message}`);
  return rows;
}

/** Non-empty, non-comment lines of a data file. */
export function readLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
}

/** Split by a hash of the text: stable across runs and independent of file order. */
export function splitByHash<T extends { readonly text: string }>(rows: readonly T[], share: number): { train: T[]; validation: T[] } {
  const train: T[] = [];
  const validation: T[] = [];
  for (const row of rows) {
    const h = createHash('sha256').update(row.text.toLowerCase()).digest().readUInt32BE(0) / 2 ** 32;
    (h < share ? validation : train).push(row);
  }
  return { train, validation };
}

const pick = <T>(items: readonly T[], rand: () => number): T => items[Math.floor(rand() * items.length)] as T;

/** One plausible slip in a word of four or more letters: a swap, a drop or a doubled letter. */
function typo(text: string, rand: () => number): string {
  const words = text.split(' ');
  const candidates = words.map((w, i) => (/^[a-z]{4,}$/iu.test(w) ? i : -1)).filter((i) => i >= 0);
  if (candidates.length === 0) return text;
  const i = pick(candidates, rand);
  const w = words[i] ?? '';
  const at = 1 + Math.floor(rand() * (w.length - 2));
  const kind = Math.floor(rand() * 3);
  words[i] = kind === 0 ? w.slice(0, at) + (w[at + 1] ?? '') + (w[at] ?? '') + w.slice(at + 2) : kind === 1 ? w.slice(0, at) + w.slice(at + 1) : w.slice(0, at) + (w[at] ?? '') + w.slice(at);
  return words.join(' ');
}

/**
 * Variants of one hand-written message: as written, lower case without punctuation and with a typo,
 * and with an appointment request attached before or after (safety must win over booking words).
 */
export function augment(text: string, bookings: readonly string[], rand: () => number): string[] {
  // Every class gets the attached requests, so booking words carry no class by themselves: the
  // model must read the rest of the message.
  const out = [text, typo(text.toLowerCase().replace(/[.,!?;:]+/gu, ''), rand), `${text} ${pick(bookings, rand)}`, `${pick(bookings, rand)} ${text}`];
  return [...new Set(out)];
}

const JOINERS = [' ', '. ', ' anyway ', ' also ', ' btw ', ', and '];
const casual = (text: string): string => text.toLowerCase().replace(/[.!?]+$/u, '');

/**
 * The message with another, administrative message attached before or after, lower case and joined
 * as people type: an attached question must not decide the class (a crisis stays a crisis).
 */
export function attach(text: string, questions: readonly string[], rand: () => number): string {
  const other = casual(pick(questions, rand));
  const joiner = pick(JOINERS, rand);
  return rand() < 0.5 ? `${casual(text)}${joiner}${other}` : `${other}${joiner}${casual(text)}`;
}
