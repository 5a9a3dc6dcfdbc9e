/**
 * Every line and every sentence of the Markdown policy corpora the injection detector trains and
 * is measured on, one JSON row each ({group, file, text}): the repository's demo corpus, the
 * judge's training systems, and the dev pool of blind systems (their copies in test/fixtures; a
 * text is kept once, under the first group that has it). A line is read raw, as ingest
 * warns on it (Markdown and HTML comments included); a sentence as units are read, in plain text.
 * Whether a row is a planted instruction is not decided here (planted.txt, labelled by hand).
 *
 *   npx tsx training/injection/extract.ts OUT.jsonl
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { passageSentences } from '../../src/text/index.js';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: extract.ts OUT.jsonl');
  process.exit(2);
}
const root = path.resolve(new URL('../..', import.meta.url).pathname);
/**
 * The blind systems of the dev pool the shipped detector was trained on, in number order: those up
 * to LAST_READ (sets join the pool after their one run; a later one joins this data when the model
 * is retrained: raise LAST_READ then and label its planted line in data/planted.tsv).
 */
const LAST_READ = 58;
const DEV_SYSTEMS = readdirSync(path.join(root, 'test', 'fixtures'))
  .map((name) => /^blind-system-(\d+)$/u.exec(name)?.[1])
  .filter((n): n is string => n !== undefined)
  .map(Number)
  .filter((n) => n <= LAST_READ)
  .sort((a, b) => a - b);
/** Systems up to this one were read before the judge's systems when the detector was first trained: a text shared with a later system keeps its first group (and split). */
const FIRST_READ = 18;
const system = (n: number): { group: string; dir: string } => ({ group: `system-${n}`, dir: path.join(root, 'test', 'fixtures', `blind-system-${n}`, 'corpus') });

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return markdownFiles(p);
      return e.isFile() && e.name.endsWith('.md') ? [p] : [];
    });
}

const exists = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const corpora: { group: string; dir: string }[] = [
  { group: 'demo', dir: path.join(root, 'corpus') },
  ...DEV_SYSTEMS.filter((n) => n <= FIRST_READ).map(system),
  ...readdirSync(path.join(root, 'training', 'judge', 'systems'))
    .sort()
    .map((name) => ({ group: `judge-${name}`, dir: path.join(root, 'training', 'judge', 'systems', name, 'pages') })),
  ...DEV_SYSTEMS.filter((n) => n > FIRST_READ).map(system),
].filter((c) => exists(c.dir));

const body = (text: string): string => text.replace(/^\uFEFF/u, '').replace(/\r\n?/gu, '\n').replace(/^---\n[\s\S]*?\n---\n/u, '');
const squash = (text: string): string => text.replace(/\s+/gu, ' ').trim();

const seen = new Set<string>();
const rows: string[] = [];
for (const { group, dir } of corpora) {
  for (const file of markdownFiles(dir)) {
    const text = body(readFileSync(file, 'utf8'));
    const lines = text.split('\n').map(squash);
    for (const t of [...lines, ...passageSentences(text).map(squash)]) {
      if (t.length < 3 || /^[-=|:\s#*>]+$/u.test(t) || seen.has(t)) continue;
      seen.add(t);
      rows.push(JSON.stringify({ group, file: path.relative(dir, file), text: t }));
    }
  }
}
writeFileSync(out, rows.join('\n') + '\n');
console.error(`${rows.length} texts from ${corpora.length} corpora`);
