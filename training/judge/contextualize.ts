/**
 * Rewrites the judge's data set so that each pair's text is exactly what the product's judge reads:
 * the page is parsed and chunked by the ingester, its units drawn from the Markdown tree by
 * src/cite/units.ts, and the pair's unit is read under its page title and headings by `judgeText`.
 * Prints how many pairs found their unit (a unit the product does not draw is a format mismatch,
 * kept as "title: unit" and counted).
 *
 * It also adds what the product's judge sees most: the other units of the page a question's
 * answering or related units come from (same page, same topic, not what was asked), up to SAME_PAGE per
 * question, as negatives of kind `same-page`; a unit sharing most of its words with a unit labelled
 * `answers` for the question is left out (it may answer too).
 *
 *   npx tsx training/judge/contextualize.ts PAIRS.jsonl SYSTEMS_DIR
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { judgeText, passageUnits } from '../../src/cite/units.js';
import { AssistantConfigSchema } from '../../src/domain/index.js';
import { chunkRevision, parsePolicyFile } from '../../src/ingest/index.js';
import { contentTerms } from '../../src/text/index.js';

interface Pair {
  readonly question: string;
  readonly kind: string;
  readonly split: string;
  readonly system: string;
  readonly page_system: string;
  readonly page: string;
  readonly title: string;
  readonly unit: string;
  text: string;
  label: number;
}

const [file, systems] = process.argv.slice(2);
if (file === undefined || systems === undefined) {
  console.error('usage: contextualize.ts PAIRS.jsonl SYSTEMS_DIR');
  process.exit(2);
}
/** Units compare without Markdown emphasis, case or spacing (the writers' units are raw page text). */
const key = (text: string): string => text.replace(/[*_`]/gu, '').replace(/\s+/gu, ' ').trim().toLowerCase();

const SAME_PAGE = 2;
const pages = new Map<string, Map<string, string>>();
function judgeTextsOf(system: string, page: string): Map<string, string> {
  const id = `${system}/${page}`;
  const known = pages.get(id);
  if (known !== undefined) return known;
  const assistant = AssistantConfigSchema.parse(parse(readFileSync(path.join(systems as string, system, 'assistant.yaml'), 'utf8')));
  const parsed = parsePolicyFile({ file: page, bytes: readFileSync(path.join(systems as string, system, page)), assistant });
  const texts = new Map<string, string>();
  if (parsed.ok) {
    for (const passage of chunkRevision(parsed.revision)) {
      for (const unit of passageUnits(passage)) texts.set(key(unit.text), judgeText(parsed.revision.title, passage.headings, unit));
    }
  } else {
    console.error(`${id}: ${parsed.problem.message}`);
  }
  pages.set(id, texts);
  return texts;
}

const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Pair);
const missed = new Map<string, number>();
for (const row of rows) {
  const text = judgeTextsOf(row.page_system, row.page).get(key(row.unit));
  if (text === undefined) {
    missed.set(row.system, (missed.get(row.system) ?? 0) + 1);
    if (process.env.VERBOSE !== undefined) console.error(`${row.page_system}/${row.page}: ${row.unit}`);
  }
  else row.text = text;
}
const overlap = (a: string, b: string): number => {
  const x = new Set(contentTerms(a));
  const y = new Set(contentTerms(b));
  return [...x].filter((t) => y.has(t)).length / Math.max(1, Math.min(x.size, y.size));
};
/** A stable pseudo-random order (no Math.random: the data set's hash is part of the model's manifest). */
const order = (text: string): string => createHash('sha256').update(text).digest('hex');
const samePage: Pair[] = [];
const questions = new Map<string, Pair[]>();
for (const row of rows) if (!row.kind.startsWith('gen-') && row.page_system === row.system) questions.set(`${row.system}\u0000${row.question}`, [...(questions.get(`${row.system}\u0000${row.question}`) ?? []), row]);
for (const group of questions.values()) {
  const first = group[0] as Pair;
  const paired = new Set(group.map((r) => key(r.unit)));
  const answering = group.filter((r) => r.label === 1).map((r) => r.unit);
  // The pages the question is about: those of its `answers` and `related` units.
  const candidates = [...new Set(group.filter((r) => r.kind !== 'unrelated').map((r) => r.page))].flatMap((page) =>
    [...judgeTextsOf(first.system, page)].filter(([k]) => !paired.has(k)).map(([k, text]) => ({ k, text, page })),
  );
  const kept = candidates.filter((c) => answering.every((a) => overlap(a, c.k) < 0.6)).sort((a, b) => order(first.question + a.k).localeCompare(order(first.question + b.k)));
  for (const c of kept.slice(0, SAME_PAGE)) samePage.push({ ...first, page: c.page, unit: c.k, text: c.text, label: 0, kind: 'same-page' });
}
rows.push(...samePage);
writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
const total = [...missed.values()].reduce((a, b) => a + b, 0);
console.log(`contextualize: ${samePage.length} same-page negatives added; ${rows.length - samePage.length - total}/${rows.length - samePage.length} pairs read as the product reads them; not drawn as a unit: ${total} ${JSON.stringify(Object.fromEntries(missed))}`);
