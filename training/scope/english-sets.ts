/**
 * Writes the English messages of labelled scope sets as `class<TAB>message` lines, for
 * build-data.ts --with (a .tsv goes to the training split whole). "English" is what the product's
 * language gate passes to the classifier: a message it routes as another language never reaches the
 * model, so the model is not taught to read it.
 *
 *   npx tsx training/scope/english-sets.ts OUT.tsv SET.yaml...
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createLanguageIdentifier, loadLanguageModel, SCOPE_CLASSES, type ScopeClass } from '../../src/scope/index.js';

const [out, ...sets] = process.argv.slice(2);
if (out === undefined || sets.length === 0) {
  console.error('usage: english-sets.ts OUT.tsv SET.yaml...');
  process.exit(2);
}
const identifier = createLanguageIdentifier(await loadLanguageModel(), []);
const lines = sets.flatMap((file) => {
  const rows = parse(readFileSync(file, 'utf8')) as { class: ScopeClass; message: string }[];
  if (!Array.isArray(rows) || rows.some((r) => !SCOPE_CLASSES.includes(r.class) || typeof r.message !== 'string')) throw new Error(`${file}: not a list of {id, class, message}`);
  const english = rows.filter((r) => identifier.identify(r.message).english);
  console.log(`${file}: ${english.length} of ${rows.length} English`);
  return english.map((r) => `${r.class}\t${r.message.replace(/\s+/gu, ' ').trim()}`);
});
writeFileSync(out, `${[...new Set(lines)].join('\n')}\n`);
console.log(`${out}: ${lines.length} lines`);
