import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CitetraceError } from '../domain/index.js';

/** What a message asks for, as the router sees it. */
export const SCOPE_CLASSES = ['admin', 'clinical', 'emergency', 'crisis'] as const;
export type ScopeClass = (typeof SCOPE_CLASSES)[number];
export type ScopeScores = Readonly<Record<ScopeClass, number>>;

/** A learned classifier over a message's sentence embedding. Identity fields go into every trace. */
export interface ScopeClassifier {
  readonly modelId: string;
  readonly sha256: string;
  readonly thresholds: ScopeHead['thresholds'];
  /** Class probabilities for each embedding (unit-length vectors of the embedder the model was trained on). */
  classify(vectors: readonly Float32Array[]): readonly ScopeScores[];
}

const LayerSchema = z.object({ weights: z.array(z.array(z.number())).min(1), bias: z.array(z.number()) });

/** The exported head: dense layers with ReLU between them and a softmax over `classes` at the end. */
export const ScopeHeadSchema = z.object({
  model_id: z.string().min(1),
  embedder: z.string().min(1),
  classes: z.array(z.enum(SCOPE_CLASSES)).length(SCOPE_CLASSES.length),
  layers: z.array(LayerSchema).min(1),
  /** Calibrated on the validation split by training/scope: route when P(emergency)+P(crisis) >= urgent, or P(clinical) >= clinical. */
  thresholds: z.object({ urgent: z.number().min(0).max(1), clinical: z.number().min(0).max(1) }),
});
export type ScopeHead = z.infer<typeof ScopeHeadSchema>;

/**
 * The shipped head (trained by training/scope, see its manifest) and its pinned sha256: a file
 * that differs stops start-up, it never falls back to anything.
 */
export const SCOPE_MODEL = {
  file: fileURLToPath(new URL('../../models/scope/scope-head.json', import.meta.url)),
  sha256: 'dae96821f2c312a51a0847f546777396b16fbe6e72e2c849bec0b33898933d3c',
} as const;

function dense(input: Float32Array, layer: { readonly weights: Float32Array[]; readonly bias: Float32Array }, relu: boolean): Float32Array {
  const out = new Float32Array(layer.bias.length);
  for (let o = 0; o < out.length; o += 1) {
    const w = layer.weights[o] ?? new Float32Array(0);
    let sum = layer.bias[o] ?? 0;
    for (let i = 0; i < input.length; i += 1) sum += (w[i] ?? 0) * (input[i] ?? 0);
    out[o] = relu && sum < 0 ? 0 : sum;
  }
  return out;
}

function softmax(logits: Float32Array): number[] {
  const max = Math.max(...logits);
  const exps = [...logits].map((l) => Math.exp(l - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** A classifier over an in-memory head (used by training and tests); `sha256` identifies it in traces. */
export function scopeClassifierFromHead(head: ScopeHead, sha256: string): ScopeClassifier {
  const layers = head.layers.map((l) => ({ weights: l.weights.map((row) => Float32Array.from(row)), bias: Float32Array.from(l.bias) }));
  for (const [i, layer] of layers.entries()) {
    const inputs = i === 0 ? null : layers[i - 1]?.bias.length;
    if (layer.weights.length !== layer.bias.length || (inputs !== null && layer.weights.some((row) => row.length !== inputs))) {
      throw new CitetraceError('MODEL_MISMATCH', `scope head ${head.model_id}: layer ${i} has inconsistent shapes`);
    }
  }
  if (layers.at(-1)?.bias.length !== head.classes.length) throw new CitetraceError('MODEL_MISMATCH', `scope head ${head.model_id}: last layer is not one output per class`);
  return {
    modelId: head.model_id,
    sha256,
    thresholds: head.thresholds,
    classify: (vectors) =>
      vectors.map((v) => {
        let x = v;
        for (const [i, layer] of layers.entries()) x = dense(x, layer, i < layers.length - 1);
        const p = softmax(x);
        const scores = { admin: 0, clinical: 0, emergency: 0, crisis: 0 };
        head.classes.forEach((c, i) => (scores[c] = p[i] ?? 0));
        return scores;
      }),
  };
}

/** Load the head from its file, refusing a missing, unreadable or altered one with one line naming the file and the expected hash. */
export function loadScopeClassifier(options: { readonly file: string; readonly sha256: string; readonly embedderId: string }): ScopeClassifier {
  let bytes: Buffer;
  try {
    bytes = readFileSync(options.file);
  } catch {
    throw new CitetraceError('MODEL_MISMATCH', `${options.file}: the scope classifier is missing (expected sha256 ${options.sha256})`);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== options.sha256) {
    throw new CitetraceError('MODEL_MISMATCH', `${options.file}: sha256 ${actual} is not the pinned ${options.sha256}`);
  }
  const head = ScopeHeadSchema.parse(JSON.parse(bytes.toString('utf8')));
  if (head.embedder !== options.embedderId) {
    throw new CitetraceError('MODEL_MISMATCH', `${options.file}: trained on embeddings of ${head.embedder}, but the embedder is ${options.embedderId}`);
  }
  return scopeClassifierFromHead(head, actual);
}
