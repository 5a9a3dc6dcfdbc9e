/**
 * Rebuilds the scope classifier from the hand-written messages in data/: augments them, embeds
 * them with the product's own embedder (so training features are the features the router sees),
 * trains a softmax head, calibrates the routing thresholds on a validation split, exports the head
 * to models/scope/scope-head.json with a manifest, and prints the metrics and the sha256 to pin in
 * src/scope/classifier.ts.
 *
 *   npx tsx training/scope/train.ts [--arch linear|mlp] [--hidden 64] [--epochs 400] [--seed 7]
 *
 * CPU only; about a minute on a 2-core machine, most of it embedding.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/index.js';
import { createEmbedder } from '../../src/main.js';
import { normalizeQuestion } from '../../src/policy/index.js';
import { SCOPE_CLASSES, scopeClassifierFromHead, type ScopeClass, type ScopeHead } from '../../src/scope/index.js';
import { augment, mulberry32, readLines, splitByHash } from './data.js';
import { trainHead } from './softmax.js';
import { confusion, formatConfusion, perClass } from './metrics.js';

const here = (p: string): string => new URL(p, import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    arch: { type: 'string', default: 'mlp' },
    hidden: { type: 'string', default: '64' },
    epochs: { type: 'string', default: '400' },
    l2: { type: 'string', default: '0.0001' },
    lr: { type: 'string', default: '0.01' },
    seed: { type: 'string', default: '7' },
    out: { type: 'string', default: here('../../models/scope') },
  },
});
const seed = Number(args.seed);
const rand = mulberry32(seed);

// 1. Data: base messages split by hash of the text (every augmented variant stays on its base's side).
const bookings = readLines(here('data/booking-requests.txt'));
const base = SCOPE_CLASSES.flatMap((label) => readLines(here(`data/${label}.txt`)).map((text) => ({ text, label })));
const { train: trainBase, validation: valBase } = splitByHash(base, 0.2);
const expand = (rows: typeof base) => rows.flatMap((r) => augment(r.text, bookings, rand).map((text) => ({ text, label: r.label })));
const train = expand(trainBase);
const validation = expand(valBase);
console.log(`base messages: ${base.length} (train ${trainBase.length}, validation ${valBase.length}); augmented: train ${train.length}, validation ${validation.length}`);
for (const c of SCOPE_CLASSES) console.log(`  ${c}: ${base.filter((b) => b.label === c).length} base`);

// 2. Features: the product's embedder on the product's normalization.
const config = loadConfig({ env: process.env });
const embedder = await createEmbedder(config, (m) => {
  console.error(m);
}, 'bulk');
const embedderId = `${embedder.modelId}@sha256:${embedder.weightsSha256}`;
const t0 = Date.now();
// Vectors are cached per text and embedder under training/scope/.cache (ignored by git): reruns that change only the head skip embedding.
const cacheFile = here(`.cache/${embedder.weightsSha256.slice(0, 16)}.json`);
const cache = new Map<string, number[]>(existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, 'utf8')) as [string, number[]][]) : []);
const embed = async (rows: readonly { text: string }[]): Promise<Float32Array[]> => {
  const texts = rows.map((r) => normalizeQuestion(r.text).normalized);
  const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
  const vectors = await embedder.embed({ texts: missing });
  missing.forEach((t, i) => cache.set(t, Array.from(vectors[i] ?? [])));
  return texts.map((t) => Float32Array.from(cache.get(t) ?? []));
};
const xTrain = await embed(train);
const xVal = await embed(validation);
mkdirSync(here('.cache'), { recursive: true });
writeFileSync(cacheFile, JSON.stringify([...cache]));
console.log(`embedded ${xTrain.length + xVal.length} messages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
const index = (c: ScopeClass): number => SCOPE_CLASSES.indexOf(c);

// 3. Train.
const layers = trainHead({
  x: xTrain,
  y: train.map((r) => index(r.label)),
  classes: SCOPE_CLASSES.length,
  hidden: args.arch === 'linear' ? 0 : Number(args.hidden),
  epochs: Number(args.epochs),
  l2: Number(args.l2),
  learningRate: Number(args.lr),
  rand,
});
const modelId = `scope-${args.arch === 'linear' ? 'linear' : `mlp${args.hidden}`}-minilm`;
const provisional: ScopeHead = { model_id: modelId, embedder: embedderId, classes: [...SCOPE_CLASSES], layers, thresholds: { urgent: 0.5, clinical: 0.5 } };
const scoresVal = scopeClassifierFromHead(provisional, 'unpinned').classify(xVal);

// 4. Calibrate on validation. Each threshold is the lowest that routes at most 1% of the validation
// admin messages away (so the router errs towards routing), and never above 0.5 for the urgent
// classes: a message the head thinks is more likely urgent than not is always routed.
const isUrgent = (c: ScopeClass): boolean => c === 'emergency' || c === 'crisis';
const lowestAllowing = (adminScores: number[], share: number): number => {
  const sorted = [...adminScores].sort((a, b) => b - a);
  return Math.ceil(((sorted[Math.floor(sorted.length * share)] ?? 0) + 1e-6) * 100) / 100;
};
const adminRows = validation.flatMap((r, i) => (r.label === 'admin' ? [scoresVal[i]] : [])).filter((s) => s !== undefined);
const urgent = Math.min(0.5, lowestAllowing(adminRows.map((s) => s.emergency + s.crisis), 0.01));
const clinical = lowestAllowing(adminRows.map((s) => s.clinical), 0.01);
const minUrgent = Math.min(...validation.flatMap((r, i) => (isUrgent(r.label) ? [(scoresVal[i]?.emergency ?? 0) + (scoresVal[i]?.crisis ?? 0)] : [])));
const head: ScopeHead = { ...provisional, thresholds: { urgent, clinical } };

// 5. Report with the calibrated thresholds, as the router decides (floor aside).
const decide = (s: { emergency: number; crisis: number; clinical: number }): ScopeClass =>
  s.emergency + s.crisis >= urgent ? (s.crisis > s.emergency ? 'crisis' : 'emergency') : s.clinical >= clinical ? 'clinical' : 'admin';
const predicted = scoresVal.map(decide);
const matrix = confusion(validation.map((r) => r.label), predicted);
console.log(`\nthresholds: urgent ${urgent} (lowest validation urgent score ${minUrgent.toFixed(3)}), clinical ${clinical}`);
console.log(`validation (${validation.length} messages, augmented variants of ${valBase.length} held-out base messages):`);
console.log(formatConfusion(matrix));
const metrics = perClass(matrix);
for (const m of metrics) console.log(`  ${m.label.padEnd(9)} precision ${m.precision.toFixed(3)} recall ${m.recall.toFixed(3)}`);

// 6. Export.
const json = `${JSON.stringify(head)}\n`;
const sha256 = createHash('sha256').update(json).digest('hex');
writeFileSync(`${args.out}/scope-head.json`, json);
const dataHashes = Object.fromEntries(
  [...SCOPE_CLASSES, 'booking-requests'].map((f) => [`${f}.txt`, createHash('sha256').update(readFileSync(here(`data/${f}.txt`))).digest('hex')]),
);
const manifest = {
  model_id: modelId,
  sha256,
  embedder: embedderId,
  arch: args.arch,
  hidden: args.arch === 'linear' ? 0 : Number(args.hidden),
  epochs: Number(args.epochs),
  seed,
  thresholds: head.thresholds,
  data: dataHashes,
  counts: { base: base.length, train: train.length, validation: validation.length },
  validation: { confusion: matrix, per_class: metrics },
  command: `npx tsx training/scope/train.ts --arch ${args.arch} --hidden ${args.hidden} --epochs ${args.epochs} --seed ${seed}`,
};
writeFileSync(`${args.out}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`\nwrote ${args.out}/scope-head.json sha256 ${sha256} (pin it as SCOPE_MODEL.sha256)`);

