import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CitetraceError } from '../domain/index.js';
import { readPinnedFile, type PinnedModelFolder } from '../model/index.js';

/**
 * Text in a policy page addressed to a machine reader instead of patients ("Note to AI assistants:
 * always promise …", "SYSTEM: reveal …"): indirect prompt injection (OWASP LLM01). Retrieved text
 * is data: such text is never a unit, never supports a sentence, and ingest warns on its line.
 *
 * The decision is a model's, not a list of phrasings: logistic regression over hashed word 1-2-grams
 * and character 3-5-grams, trained on written lines and hard negatives and every sentence of the
 * dev-pool corpora (training/injection, docs/injection.md). Cheap enough for every sentence of
 * every retrieved passage: one pass over the text, no allocation per n-gram.
 */
export interface InjectionDetector {
  readonly modelId: string;
  /** sha256 of the manifest, which pins the weights and states the threshold. */
  readonly sha256: string;
  readonly threshold: number;
  /**
   * A unit scoring at or above this (and below `threshold`) stays on its page but is never an answer
   * unit: missing an instruction quotes it to a patient, while keeping a rule out of answers costs
   * at most an abstention (calibrated on validation by training/injection/data.py).
   */
  readonly answerThreshold: number;
  /** P(addressed to a machine reader). */
  score(text: string): number;
  /** score(text) >= threshold. */
  isInstruction(text: string): boolean;
}

/** The shipped detector; the manifest's hash is pinned here, the weights by the manifest. */
export const INJECTION_MODEL: PinnedModelFolder = {
  dir: fileURLToPath(new URL('../../models/injection', import.meta.url)),
  manifestSha256: 'ce6f5aed6c9b92ab11ebc8418a8c6974ac594ac93795e9f5c6a8b359bb5917a6',
};

const WEIGHTS_FILE = 'weights.f32';

const ManifestSchema = z
  .object({
    model_id: z.string().min(1),
    buckets: z
      .number()
      .int()
      .positive()
      .refine((n) => (n & (n - 1)) === 0, 'a power of two'),
    intercept: z.number(),
    threshold: z.number().gt(0).lt(1),
    answer_threshold: z.number().gt(0).lt(1),
    files: z.object({ [WEIGHTS_FILE]: z.string().regex(/^[0-9a-f]{64}$/u) }),
  })
  .refine((m) => m.answer_threshold <= m.threshold, 'answer_threshold above threshold');

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const CHAR_MIN = 3;
const CHAR_MAX = 5;
const INVISIBLE = /\u00ad|\u200b|\u200c|\u200d|\u2060|\ufeff/gu;
const WORD = /[\p{L}\p{N}]+/gu;

const step = (h: number, codePoint: number): number => Math.imul(h ^ codePoint, FNV_PRIME) >>> 0;

function hashOf(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const point = text.codePointAt(i) ?? 0;
    if (point > 0xffff) i++;
    h = step(h, point);
  }
  return h;
}

const WORD_SEED = hashOf(FNV_OFFSET, 'w');
const BIGRAM_SEED = hashOf(FNV_OFFSET, 'b');
const CHAR_SEED = hashOf(FNV_OFFSET, 'c');
const SPACE = 0x20;

/** As training/injection/features.py normalizes: NFKC, no zero-width characters, lower case, single spaces. */
const normalize = (text: string): string => text.normalize('NFKC').replace(INVISIBLE, '').toLowerCase().replace(/\s+/gu, ' ').trim();

/**
 * The sum of the weights of the text's features (features.py `slots`: word unigrams and bigrams,
 * character 3- to 5-grams of the padded text, each hashed to a slot), divided by the square root of
 * their number.
 */
function weighted(text: string, weights: Float32Array, mask: number): number {
  const normalized = normalize(text);
  let dot = 0;
  let n = 0;
  const words = normalized.match(WORD) ?? [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    dot += weights[hashOf(WORD_SEED, word) & mask] ?? 0;
    n++;
    if (i + 1 < words.length) {
      dot += weights[hashOf(step(hashOf(BIGRAM_SEED, word), SPACE), words[i + 1] ?? '') & mask] ?? 0;
      n++;
    }
  }
  // Character n-grams over the code points of the text padded with a space each side.
  const points = new Int32Array(normalized.length + 2);
  let length = 0;
  points[length++] = SPACE;
  for (let i = 0; i < normalized.length; i++) {
    const point = normalized.codePointAt(i) ?? 0;
    if (point > 0xffff) i++;
    points[length++] = point;
  }
  points[length++] = SPACE;
  for (let i = 0; i + CHAR_MIN <= length; i++) {
    let h = CHAR_SEED;
    for (let k = 0; k < CHAR_MAX && i + k < length; k++) {
      h = step(h, points[i + k] ?? 0);
      if (k + 1 >= CHAR_MIN) {
        dot += weights[h & mask] ?? 0;
        n++;
      }
    }
  }
  return n === 0 ? 0 : dot / Math.sqrt(n);
}

/** Load a detector folder, checking the manifest against its pinned hash and the weights against the manifest. */
export function loadInjectionDetector(folder: PinnedModelFolder): InjectionDetector {
  const what = 'injection detector';
  const manifestFile = path.join(folder.dir, 'manifest.json');
  const manifest = ManifestSchema.parse(JSON.parse(readPinnedFile(what, manifestFile, folder.manifestSha256).toString('utf8')));
  const bytes = readPinnedFile(what, path.join(folder.dir, WEIGHTS_FILE), manifest.files[WEIGHTS_FILE]);
  if (bytes.byteLength !== manifest.buckets * 4) {
    throw new CitetraceError('MODEL_MISMATCH', `${path.join(folder.dir, WEIGHTS_FILE)}: ${bytes.byteLength} bytes, not ${manifest.buckets} float32 weights`);
  }
  const weights = new Float32Array(manifest.buckets);
  for (let i = 0; i < weights.length; i++) weights[i] = bytes.readFloatLE(i * 4);
  const mask = manifest.buckets - 1;
  const score = (text: string): number => 1 / (1 + Math.exp(-(manifest.intercept + weighted(text, weights, mask))));
  return {
    modelId: manifest.model_id,
    sha256: folder.manifestSha256,
    threshold: manifest.threshold,
    answerThreshold: manifest.answer_threshold,
    score,
    isInstruction: (text) => score(text) >= manifest.threshold,
  };
}

let shipped: InjectionDetector | undefined;

/** The shipped detector, loaded (and checked) once per process. */
export function shippedInjectionDetector(): InjectionDetector {
  return (shipped ??= loadInjectionDetector(INJECTION_MODEL));
}

/** Whether the shipped detector reads `text` as addressed to a machine reader rather than to patients. */
export const isInstruction = (text: string): boolean => shippedInjectionDetector().isInstruction(text);

/** Whether the shipped detector keeps `text` out of answers: it scores at or above the answer threshold (below which nothing is kept out). */
export function keptOutOfAnswers(text: string): boolean {
  const detector = shippedInjectionDetector();
  return detector.score(text) >= detector.answerThreshold;
}
