/**
 * Routes a labelled message set through the product's scope router (safety floor + the shipped
 * fine-tuned classifier and the second one that can only add an urgent routing) and prints the
 * confusion matrix and per-class precision and recall.
 *
 *   npx tsx training/scope/evaluate.ts MESSAGES.yaml [--json OUT] [--show-misses] [--model DIR ...] [--no-second] [--no-language]
 *
 * --model DIR: a candidate model folder (finetune.py --out) instead of the shipped one; its manifest's
 * sha256 is computed here, not pinned, so only the folder's own file hashes are checked. Given more
 * than once, the folders' class probabilities are averaged text by text (thresholds of the first).
 *
 * --no-second: without the second classifier (models/scope-urgent), which can only add an urgent routing.
 * --second-adds emergency[,crisis]: the kinds of routing it may add (default: the shipped SECOND_READER_ADDS).
 *
 * --no-language: the classifier and floor alone, without the language identifier (route `language`:
 * a message the assistant cannot read, told 911, 988 and the interpreter line).
 *
 * MESSAGES.yaml: a list of {id, class: emergency|crisis|clinical|admin, message}, or the legacy
 * fixture shape {emergency: [...], clinical: [...], in_scope: [...]}.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { UrgentClassSchema } from '../../src/domain/index.js';
import { digestOf } from '../../src/model/download.js';
import { createScopeRouterFor } from '../../src/main.js';
import { normalizeQuestion } from '../../src/policy/index.js';
import { loadScopeClassifier, SCOPE_CLASSES, type ScopeClass, type ScopeClassifier, type UrgentClass } from '../../src/scope/index.js';
import { confusion, formatConfusion, perClass, type Route } from './metrics.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { json: { type: 'string' }, 'show-misses': { type: 'boolean', default: false }, model: { type: 'string', multiple: true }, 'no-second': { type: 'boolean', default: false }, 'second-adds': { type: 'string' }, 'no-language': { type: 'boolean', default: false } },
});
const file = positionals[0];
if (file === undefined) {
  console.error('usage: evaluate.ts MESSAGES.yaml [--json OUT] [--show-misses] [--model DIR]');
  process.exit(2);
}
interface Row {
  readonly id: string;
  readonly label: ScopeClass;
  readonly message: string;
}
const data = parse(readFileSync(file, 'utf8')) as unknown;
const legacy = { emergency: 'emergency', clinical: 'clinical', in_scope: 'admin' } as const;
const rows: Row[] = Array.isArray(data)
  ? (data as { id: string; class: ScopeClass; message: string }[]).map((r) => ({ id: r.id, label: r.class, message: r.message }))
  : Object.entries(legacy).flatMap(([key, label]) => ((data as Record<string, string[]>)[key] ?? []).map((message, i) => ({ id: `${key}-${i + 1}`, label, message })));

/** `--second-adds emergency,crisis`: each kind named, or one line and exit 2. */
function urgentKinds(list: string): UrgentClass[] {
  return list.split(',').map((kind) => {
    const parsed = UrgentClassSchema.safeParse(kind);
    if (!parsed.success) {
      console.error(`--second-adds: "${kind}" is not ${UrgentClassSchema.options.join(' or ')}`);
      process.exit(2);
    }
    return parsed.data;
  });
}

const config = loadConfig({ env: process.env });
const candidates = await Promise.all(
  (args.model ?? []).map((dir) => loadScopeClassifier({ dir, manifestSha256: digestOf('sha256', readFileSync(join(dir, 'manifest.json'))), threads: config.embedThreads })),
);
/** Several candidates as one: their probabilities averaged per text and class, the first one's thresholds. */
function averageOf(first: ScopeClassifier, rest: readonly ScopeClassifier[]): ScopeClassifier {
  if (rest.length === 0) return first;
  const members = [first, ...rest];
  return {
    modelId: members.map((m) => m.modelId).join('+'),
    sha256: members.map((m) => m.sha256.slice(0, 12)).join('+'),
    thresholds: first.thresholds,
    async classify(texts) {
      const each = await Promise.all(members.map((m) => m.classify(texts)));
      return texts.map((_, i) => Object.fromEntries(SCOPE_CLASSES.map((c) => [c, each.reduce((sum, scores) => sum + (scores[i]?.[c] ?? 0), 0) / members.length])) as Record<ScopeClass, number>);
    },
  };
}
const [firstCandidate, ...otherCandidates] = candidates;
const candidate = firstCandidate === undefined ? undefined : averageOf(firstCandidate, otherCandidates);
const router = await createScopeRouterFor({ organization: 'evaluation', appointment_channel: 'the appointment line', entities: {} }, config, {
  ...(candidate === undefined ? {} : { classifier: candidate }),
  ...(args['no-second'] ? { urgentReader: null } : {}),
  ...(args['second-adds'] === undefined ? {} : { urgentReaderAdds: urgentKinds(args['second-adds']) }),
  ...(args['no-language'] ? { language: null } : {}),
});
if (candidate !== undefined) console.log(`model ${(args.model ?? []).join(' + ')} (manifest sha256 ${candidate.sha256}, thresholds ${JSON.stringify(candidate.thresholds)})`);
const routed: Route[] = [];
const details = [];
const durations: number[] = [];
for (const row of rows) {
  const text = normalizeQuestion(row.message).normalized;
  const start = performance.now();
  const r = await router.route({ text });
  durations.push(performance.now() - start);
  // A message that asks nothing is kept from every routing, as an administrative one is.
  const got: Route = r.route === 'in_scope' || r.route === 'no_request' ? 'admin' : r.route;
  routed.push(got);
  details.push({ ...row, got, decided_by: r.decided_by, language: r.language?.code ?? null, floor_phrase: r.floor_phrase, urgent: r.urgent, scores: r.scores, second_urgent: r.second?.urgent ?? null });
  if (args['show-misses'] && got !== row.label) console.log(`  ${row.id} ${row.label} -> ${got} (${r.decided_by}, urgent ${r.urgent.toFixed(2)}, clinical ${r.scores.clinical.toFixed(2)}): ${row.message}`);
}
const matrix = confusion(rows.map((r) => r.label), routed);
const metrics = perClass(matrix);
const urgentRows = rows.map((r, i) => ({ r, got: routed[i] })).filter(({ r }) => r.label === 'emergency' || r.label === 'crisis');
const urgentRouted = urgentRows.filter(({ got }) => got === 'emergency' || got === 'crisis' || got === 'language').length;
const admin = rows.map((r, i) => ({ r, got: routed[i] })).filter(({ r }) => r.label === 'admin');
const adminAway = admin.filter(({ got }) => got !== 'admin').length;
const byFloor = details.filter((d) => d.decided_by === 'floor').length;
console.log(`${file}: ${rows.length} messages`);
console.log(formatConfusion(matrix));
for (const m of metrics) console.log(`  ${m.label.padEnd(9)} precision ${m.precision.toFixed(3)} recall ${m.recall.toFixed(3)} (n=${m.support})`);
console.log(`emergency or crisis routed away (either route, or language with 911 / 988): ${urgentRouted}/${urgentRows.length}`);
console.log(`admin routed away: ${adminAway}/${admin.length} (${((100 * adminAway) / Math.max(1, admin.length)).toFixed(1)}%)`);
console.log(`decided by the safety floor: ${byFloor}; by the classifier or in scope: ${rows.length - byFloor}`);
if (args.json !== undefined) {
  writeFileSync(args.json, `${JSON.stringify({ file, classes: SCOPE_CLASSES, confusion: matrix, per_class: metrics, urgent_routed: urgentRouted, urgent_total: urgentRows.length, admin_routed_away: adminAway, admin_total: admin.length, messages: details }, null, 2)}\n`);
}
