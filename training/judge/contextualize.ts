/**
 * Rewrites the judge's data set so that each pair's text is exactly what the product's judge reads:
 * the page is parsed and chunked by the ingester, its units drawn from the Markdown tree by
 * src/cite/units.ts, and the pair's unit is read under its page title and headings by `judgeText`.
 * Prints how many pairs found their unit (a unit the product does not draw is a format mismatch,
 * kept as "title: unit" and counted).
 *
 *   npx tsx training/judge/contextualize.ts PAIRS.jsonl SYSTEMS_DIR
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { judgeText, passageUnits } from '../../src/cite/units.js';
import { AssistantConfigSchema } from '../../src/domain/index.js';
import { chunkRevision, parsePolicyFile } from '../../src/ingest/index.js';

interface Pair {
  readonly system: string;
  readonly page_system: string;
  readonly page: string;
  readonly title: string;
  readonly unit: string;
  text: string;
  readonly label: number;
}

const [file, systems] = process.argv.slice(2);
if (file === undefined || systems === undefined) {
  console.error('usage: contextualize.ts PAIRS.jsonl SYSTEMS_DIR');
  process.exit(2);
}
/** Units compare without Markdown emphasis, case or spacing (the writers' units are raw page text). */
const key = (text: string): string => text.replace(/[*_`]/gu, '').replace(/\s+/gu, ' ').trim().toLowerCase();

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
writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
const total = [...missed.values()].reduce((a, b) => a + b, 0);
console.log(`contextualize: ${rows.length - total}/${rows.length} pairs read as the product reads them; not drawn as a unit: ${total} ${JSON.stringify(Object.fromEntries(missed))}`);
