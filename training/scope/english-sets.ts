/**
 * Writes the English messages of labelled scope sets as `class<TAB>message` lines, for
 * build-data.ts --with (a .tsv goes to the training split whole). "English" is what the product's
 * language gate passes to the classifier: a message it routes as another language never reaches the
 * model, so the model is not taught to read it.
 *
 *   npx tsx training/scope/english-sets.ts OUT.tsv SET.yaml...
 */
import { writeFileSync } from 'node:fs';
import { createLanguageIdentifier, loadLanguageModel } from '../../src/scope/index.js';
import { readMessageSet } from './data.js';

const [out, ...sets] = process.argv.slice(2);
if (out === undefined || sets.length === 0) {
  console.error('usage: english-sets.ts OUT.tsv SET.yaml...');
  process.exit(2);
}
const identifier = createLanguageIdentifier(await loadLanguageModel(), []);
const lines = sets.flatMap((file) => {
  const rows = readMessageSet(file);
  const english = rows.filter((r) => identifier.identify(r.message).english);
  console.log(`${file}: ${english.length} of ${rows.length} English`);
  return english.map((r) => `${r.class}\t${r.message.replace(/\s+/gu, ' ').trim()}`);
});
// A message two sets share (the same words) is one training message.
const unique = [...new Set(lines)];
writeFileSync(out, `${unique.join('\n')}\n`);
console.log(`${out}: ${unique.length} lines (${lines.length - unique.length} repeated across sets left out)`);
