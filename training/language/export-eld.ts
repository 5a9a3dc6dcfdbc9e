/**
 * Writes eld's "small" n-gram database (from the pinned npm package eld 2.1.0) to
 * models/language/eld-small.json in the compact form src/scope/language.ts reads, and prints its
 * sha256 to pin as LANGUAGE_MODEL.sha256 there. The package ships the database as a 1.6 MB
 * JavaScript object literal of 81,206 small objects: about 0.4 s to import, 65 ms to parse as JSON
 * and some 30 MB of heap on every cold start. Here the same numbers are three strings: the
 * n-grams sorted and joined (with their lengths), and per n-gram its (language, score) pairs as
 * bytes; the loader looks an n-gram up by binary search and builds its scores on demand.
 *
 *   npx tsx training/language/export-eld.ts
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface EldData {
  readonly type: string;
  readonly languages: Readonly<Record<string, string>>;
  readonly isSubset: boolean;
  readonly ngrams: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

const source = new URL('../ngrams/small.js', import.meta.resolve('eld/small'));
const { ngramsData } = (await import(source.href)) as { ngramsData: EldData };
const grams = Object.keys(ngramsData.ngrams).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const pairs: number[] = [];
const counts: number[] = [];
for (const gram of grams) {
  const scores = Object.entries(ngramsData.ngrams[gram] ?? {});
  counts.push(scores.length);
  for (const [language, score] of scores) {
    if (!Number.isInteger(score) || score < 0 || score > 255 || Number(language) > 255) throw new Error(`${gram}: ${language}=${score} does not fit a byte`);
    pairs.push(Number(language), score);
  }
}
const lengths = grams.map((gram) => gram.length);
if (lengths.some((n) => n > 255) || counts.some((n) => n > 255)) throw new Error('an n-gram or its score list does not fit a byte');
const compact = {
  format: 'eld-compact-1',
  type: ngramsData.type,
  languages: ngramsData.languages,
  isSubset: ngramsData.isSubset,
  grams: grams.join(''),
  lengths: Buffer.from(lengths).toString('base64'),
  counts: Buffer.from(counts).toString('base64'),
  pairs: Buffer.from(pairs).toString('base64'),
};
const json = `${JSON.stringify(compact)}\n`;
const out = fileURLToPath(new URL('../../models/language/eld-small.json', import.meta.url));
writeFileSync(out, json);
console.log(`${out}: ${grams.length} n-grams, ${pairs.length / 2} scores; sha256 ${createHash('sha256').update(json).digest('hex')}`);
