import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BertTokenizer } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { CitetraceError, wrapError } from '../domain/index.js';

/** What a message asks for, as the router sees it. */
export const SCOPE_CLASSES = ['admin', 'clinical', 'emergency', 'crisis'] as const;
export type ScopeClass = (typeof SCOPE_CLASSES)[number];
export type ScopeScores = Readonly<Record<ScopeClass, number>>;

/** A learned message classifier. Identity fields and thresholds go into every trace. */
export interface ScopeClassifier {
  readonly modelId: string;
  /** sha256 of the manifest, which pins every file of the model and the thresholds. */
  readonly sha256: string;
  readonly thresholds: { readonly urgent: number; readonly clinical: number };
  /** Class probabilities for each (normalized) text. */
  classify(texts: readonly string[]): Promise<readonly ScopeScores[]>;
}

const MODEL_FILE = 'model_quantized.onnx';
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;

const ManifestSchema = z.object({
  model_id: z.string().min(1),
  classes: z.array(z.enum(SCOPE_CLASSES)).length(SCOPE_CLASSES.length),
  thresholds: z.object({ urgent: z.number().min(0).max(1), clinical: z.number().min(0).max(1) }),
  max_length: z.number().int().positive(),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/u)),
});

/**
 * The shipped model: MiniLM-L6 fine-tuned as a scope classifier by training/scope, int8 ONNX, and
 * the pinned sha256 of its manifest (which holds the hash of every other file and the calibrated
 * thresholds). A missing or altered file stops start-up; nothing falls back.
 */
export const SCOPE_MODEL = {
  dir: fileURLToPath(new URL('../../models/scope', import.meta.url)),
  manifestSha256: 'f2630da31237c5ad15cbf26e9936b09edbb8a6e34dccb3728104359ecf4ffd82',
} as const;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function readPinned(file: string, expected: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new CitetraceError('MODEL_MISMATCH', `${file}: the scope classifier file is missing (expected sha256 ${expected})`);
  }
  const actual = sha256(bytes);
  if (actual !== expected) throw new CitetraceError('MODEL_MISMATCH', `${file}: sha256 ${actual} is not the pinned ${expected}`);
  return bytes;
}

function softmax(logits: Float32Array, offset: number, n: number): number[] {
  const row = Array.from(logits.subarray(offset, offset + n));
  const max = Math.max(...row);
  const exps = row.map((l) => Math.exp(l - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** Load the model folder, checking the manifest against its pinned hash and every file against the manifest. */
export async function loadScopeClassifier(options: { readonly dir: string; readonly manifestSha256: string; readonly threads?: number }): Promise<ScopeClassifier> {
  const manifestFile = path.join(options.dir, 'manifest.json');
  const manifest = ManifestSchema.parse(JSON.parse(readPinned(manifestFile, options.manifestSha256).toString('utf8')));
  const pinned = (name: string): Buffer => {
    const expected = manifest.files[name];
    if (expected === undefined) throw new CitetraceError('MODEL_MISMATCH', `${manifestFile}: names no hash for ${name}`);
    return readPinned(path.join(options.dir, name), expected);
  };
  const [tokenizerJson, tokenizerConfig] = TOKENIZER_FILES.map((f) => JSON.parse(pinned(f).toString('utf8')) as object);
  const tokenizer = new BertTokenizer(tokenizerJson, tokenizerConfig);
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(pinned(MODEL_FILE), { intraOpNumThreads: options.threads ?? 1, interOpNumThreads: 1 });
  } catch (error) {
    throw wrapError('MODEL_UNAVAILABLE', `cannot load the scope classifier ${path.join(options.dir, MODEL_FILE)}`, error);
  }
  const classes = manifest.classes;
  return {
    modelId: manifest.model_id,
    sha256: options.manifestSha256,
    thresholds: manifest.thresholds,
    async classify(texts) {
      if (texts.length === 0) return [];
      const encoded = tokenizer([...texts], { padding: true, truncation: true, max_length: manifest.max_length });
      const feeds = Object.fromEntries(
        (['input_ids', 'attention_mask', 'token_type_ids'] as const).map((name) => {
          const tensor = encoded[name] as { data: BigInt64Array; dims: number[] };
          return [name, new ort.Tensor('int64', tensor.data, tensor.dims)];
        }),
      );
      const { logits } = await session.run(feeds);
      const data = logits?.data as Float32Array;
      return texts.map((_, i) => {
        const p = softmax(data, i * classes.length, classes.length);
        const scores = { admin: 0, clinical: 0, emergency: 0, crisis: 0 };
        classes.forEach((c, j) => (scores[c] = p[j] ?? 0));
        return scores;
      });
    },
  };
}
