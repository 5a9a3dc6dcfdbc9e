/**
 * Writes eld's "small" n-gram database (from the pinned npm package eld 2.1.0) as JSON to
 * models/language/eld-small.json, and prints its sha256 to pin as LANGUAGE_MODEL.sha256 in
 * src/scope/language.ts. The package ships it as a 1.6 MB JavaScript object literal, which takes
 * about 0.4 s to import; the same data as JSON parses in about 0.1 s, on every cold start.
 *
 *   npx tsx training/language/export-eld.ts
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../ngrams/small.js', import.meta.resolve('eld/small'));
const { ngramsData } = (await import(source.href)) as { ngramsData: unknown };
const json = `${JSON.stringify(ngramsData)}\n`;
const out = fileURLToPath(new URL('../../models/language/eld-small.json', import.meta.url));
writeFileSync(out, json);
console.log(`${out}: sha256 ${createHash('sha256').update(json).digest('hex')}`);
