/**
 * Judge pairs from evaluation cases that have joined the dev pool (their blind run is on record):
 * each case's question against the units the product's judge would read for it (same retrieval,
 * same unit drawing, same preselection), labelled from the case itself. For an `answer` case a
 * unit answers when its revision is one the case names as support and it states every fact (one
 * alternative of each group); a unit stating them from another revision is left out (it may answer
 * too), and every other unit is a negative. For an `abstain` case every unit is a negative (these
 * are the traps: text on the topic that does not say what was asked). Clarify and out-of-scope
 * cases give no pairs. Appends JSON lines in the format of build_pairs.py.
 *
 * CASE_NEGATIVES=other-pages leaves out, for an `answer` case, the other units of its supporting
 * revisions: the noisiest labels (a unit of the answer's own page may say the fact in other words
 * than the case's `facts`), keeping the answer, the units of other pages and every abstain case's.
 * CASE_NEGATIVES_PER_CASE=K keeps a case's K negatives the current judge scored highest.
 *
 *   npx tsx training/judge/from-cases.ts DATA_DIR CASES.yaml SYSTEM SPLIT OUT.jsonl
 */
import { appendFileSync } from 'node:fs';
import { judgeSupport, judgeText } from '../../src/cite/index.js';
import { loadConfig } from '../../src/config/index.js';
import { labelOf } from '../../src/domain/index.js';
import { readCases, refMatches } from '../../src/eval/index.js';
import { openRuntime, createEmbedder } from '../../src/main.js';
import { mentionedEntities, normalizeQuestion } from '../../src/policy/index.js';
import { createHybridRetriever } from '../../src/retrieve/index.js';

const [dataDir, casesFile, system, split, out] = process.argv.slice(2);
if (dataDir === undefined || casesFile === undefined || system === undefined || split === undefined || out === undefined) {
  console.error('usage: from-cases.ts DATA_DIR CASES.yaml SYSTEM SPLIT OUT.jsonl');
  process.exit(2);
}
const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir } });
const embedder = await createEmbedder(config);
const runtime = await openRuntime({ config, embedder });
const retriever = createHybridRetriever({ index: runtime.index, embedder });
const assistant = runtime.index.manifest.assistant;
const states = (text: string, alternatives: readonly string[]): boolean => alternatives.some((a) => text.toLowerCase().includes(a.toLowerCase()));
const otherPagesOnly = process.env.CASE_NEGATIVES === 'other-pages';
const negativesPerCase = Number(process.env.CASE_NEGATIVES_PER_CASE ?? Infinity);
let positives = 0;
let negatives = 0;
for (const c of await readCases(casesFile)) {
  if (c.expect !== 'answer' && c.expect !== 'abstain') continue;
  if (c.expect === 'answer' && c.facts.length === 0) continue;
  const question = normalizeQuestion(c.question).normalized;
  const mentioned = mentionedEntities(question, assistant);
  const hits = await retriever.retrieve({ query: question, role: c.role, asOf: c.as_of ?? '2026-12-03', entities: mentioned, limit: config.candidates });
  const passages = hits.map((h, i) => ({ label: labelOf(i), passage: h.passage, revision: h.revision }));
  const decision = await judgeSupport({ judge: runtime.judge, question, passages, maxUnits: config.judgeUnits, assistant, mentioned });
  const byLabel = new Map(passages.map((p) => [p.label, p]));
  const rows: { readonly pair: object; readonly label: number; readonly score: number }[] = [];
  for (const unit of decision.units) {
    const p = byLabel.get(unit.label);
    if (p === undefined || unit.excluded !== null) continue;
    const supporting = c.support.some((ref) => refMatches(ref, p.passage.sourceId, p.revision.version));
    const statesFacts = c.expect === 'answer' && c.facts.every((group) => states(unit.text, group));
    const label = statesFacts && supporting ? 1 : 0;
    // Read by the judge in production, or the answer itself: the pairs the judge must get right.
    if (unit.score === null && label === 0) continue;
    if (statesFacts && !supporting) continue;
    if (otherPagesOnly && label === 0 && c.expect === 'answer' && supporting) continue;
    const pair = { system, question: c.question, text: judgeText(p.revision.title, p.passage.headings, unit), label, kind: c.expect === 'abstain' ? 'case-abstain' : label === 1 ? 'case-answer' : 'case-other-unit', page: p.passage.sourceId, split };
    rows.push({ pair, label, score: unit.score ?? 0 });
  }
  // With a cap, the negatives kept are the hardest: those the judge that chose the units scored highest (written in unit order).
  const hardest = new Set(rows.filter((r) => r.label === 0).sort((a, b) => b.score - a.score).slice(0, negativesPerCase));
  const kept = rows.filter((r) => r.label === 1 || hardest.has(r));
  for (const row of kept) appendFileSync(out, `${JSON.stringify(row.pair)}\n`);
  positives += kept.filter((r) => r.label === 1).length;
  negatives += kept.filter((r) => r.label === 0).length;
}
await runtime.close();
console.log(`${casesFile}: ${positives} answering units, ${negatives} others (${system}, ${split})`);
