import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BertTokenizer } from '@huggingface/transformers';
import type { InferenceSession } from 'onnxruntime-node';
import { z } from 'zod';
import { CitetraceError, wrapError } from '../domain/index.js';
import { digestOf } from './download.js';
import { inferenceThread } from './inference-thread.js';

/**
 * A model shipped in the repository: a folder with an int8 ONNX sequence classifier, its tokenizer,
 * and a manifest that holds the sha256 of every other file; the code pins the manifest's own hash.
 * A missing or altered file stops start-up with one line naming it and the expected hash; nothing
 * falls back.
 */
export interface PinnedModelFolder {
  readonly dir: string;
  readonly manifestSha256: string;
}

/** What every shipped model's manifest states; each model adds its own fields (classes, thresholds). */
export const ModelManifestSchema = z.object({
  model_id: z.string().min(1),
  max_length: z.number().int().positive(),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/u)),
});

export interface PinnedClassifier<M> {
  readonly manifest: M;
  /** sha256 of the manifest, which pins everything else. */
  readonly sha256: string;
  /**
   * Class probabilities (softmax over the logits) for each input: a text, or a text pair read
   * as one BERT sequence pair (`[CLS] text [SEP] pair [SEP]`, the pair cut to fit max_length).
   */
  probabilities(texts: readonly string[], pairs?: readonly string[]): Promise<number[][]>;
}

const MODEL_FILE = 'model_quantized.onnx';
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;
const SEP = 102n;

/** A file's bytes, refused with one line when it is missing or its sha256 is not `expected`. */
export function readPinnedFile(what: string, file: string, expected: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new CitetraceError('MODEL_MISMATCH', `${file}: the ${what} file is missing (expected sha256 ${expected})`);
  }
  const actual = digestOf('sha256', bytes);
  if (actual !== expected) throw new CitetraceError('MODEL_MISMATCH', `${file}: sha256 ${actual} is not the pinned ${expected}`);
  return bytes;
}

function softmax(logits: Float32Array): number[] {
  const row = Array.from(logits);
  const max = Math.max(...row);
  const exps = row.map((l) => Math.exp(l - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** How a model's onnxruntime session runs: its intra-op threads (default 1), and where. */
export interface SessionPlacement {
  readonly threads?: number;
  /** On the process's inference thread (src/model/inference-thread.ts), off the event loop. */
  readonly onThread?: boolean;
  /**
   * Do not wait for the session: the loader returns once the manifest is checked and hands the
   * session's build (which reads and checks the model files) to this callback; a call waits for it
   * and fails as it does. A one-shot command starts on its question meanwhile (models.ts).
   */
  readonly onBuilding?: (built: Promise<unknown>) => void;
}

/** A session's run, awaited now or, with `onBuilding`, handed over and awaited by each call. */
export async function placed<R extends (...args: never[]) => Promise<unknown>>(building: Promise<R>, placement: SessionPlacement | undefined): Promise<R> {
  if (placement?.onBuilding === undefined) return building;
  building.catch(() => undefined); // reported through the callback's promise and by every call
  placement.onBuilding(building);
  return (async (...args: Parameters<R>) => (await building)(...args)) as R;
}

/** Load a model folder, checking the manifest against its pinned hash and every file against the manifest. */
export async function loadPinnedClassifier<S extends typeof ModelManifestSchema>(options: {
  readonly folder: PinnedModelFolder;
  readonly schema: S;
  /** What the model is, for error lines ("scope classifier"). */
  readonly what: string;
  readonly session?: SessionPlacement;
}): Promise<PinnedClassifier<z.output<S>>> {
  const { folder, what } = options;
  const manifestFile = path.join(folder.dir, 'manifest.json');
  const manifest = options.schema.parse(JSON.parse(readPinnedFile(what, manifestFile, folder.manifestSha256).toString('utf8')));
  for (const name of [MODEL_FILE, ...TOKENIZER_FILES]) {
    if (manifest.files[name] === undefined) throw new CitetraceError('MODEL_MISMATCH', `${manifestFile}: names no hash for ${name}`);
  }
  const spec: ClassifierSpec = { dir: folder.dir, files: manifest.files, maxLength: manifest.max_length, threads: options.session?.threads ?? 1, what };
  const probabilities = await placed(options.session?.onThread === true ? inferenceThread().classifier(spec) : createClassifierRun(spec), options.session);
  return {
    manifest,
    sha256: folder.manifestSha256,
    probabilities,
  };
}

/**
 * What a classifier session is made from: its folder and the pinned sha256 of each file (from the
 * manifest, itself pinned). The thread that builds the session reads and checks the files, so the
 * bytes it runs are the bytes it checked, and on the inference thread the main thread never reads them.
 */
export interface ClassifierSpec {
  readonly dir: string;
  readonly files: Readonly<Record<string, string>>;
  readonly maxLength: number;
  readonly threads: number;
  /** For error lines: what the model is. */
  readonly what: string;
}

export type ProbabilitiesRun = PinnedClassifier<unknown>['probabilities'];

/** An onnxruntime session and tokenizer in this thread (the inference thread builds the same). */
export async function createClassifierRun(spec: ClassifierSpec): Promise<ProbabilitiesRun> {
  // Loaded here, not at the top: a process whose models run on the inference thread never needs them.
  const [{ BertTokenizer }, ort] = await Promise.all([import('@huggingface/transformers'), import('onnxruntime-node')]);
  const pinned = (name: string): Buffer => readPinnedFile(spec.what, path.join(spec.dir, name), spec.files[name] ?? '');
  const [tokenizerJson, tokenizerConfig] = TOKENIZER_FILES.map((f) => JSON.parse(pinned(f).toString('utf8')) as object) as [object, object];
  const model = pinned(MODEL_FILE);
  let tokenizer: BertTokenizer;
  let session: InferenceSession;
  try {
    tokenizer = new BertTokenizer(tokenizerJson, tokenizerConfig);
    session = await ort.InferenceSession.create(model, { intraOpNumThreads: spec.threads, interOpNumThreads: 1 });
  } catch (error) {
    throw wrapError('MODEL_UNAVAILABLE', `cannot load the ${spec.what} ${path.join(spec.dir, MODEL_FILE)}`, error);
  }
  const run = async (text: string, pair: string | undefined): Promise<number[]> => {
    const encoded = tokenizer(text, { ...(pair === undefined ? {} : { text_pair: pair }), truncation: true, max_length: spec.maxLength });
    const ids = encoded.input_ids as { data: BigInt64Array; dims: number[] };
    // The tokenizer cuts a long pair at the end, [SEP] included; close it again as the training tokenizer did.
    if (pair !== undefined) ids.data[ids.data.length - 1] = SEP;
    const feeds = Object.fromEntries(
      (['input_ids', 'attention_mask', 'token_type_ids'] as const).map((name) => {
        const t = encoded[name] as { data: BigInt64Array; dims: number[] };
        return [name, new ort.Tensor('int64', t.data, t.dims)];
      }),
    );
    const { logits } = await session.run(feeds);
    const data = logits?.data as Float32Array;
    return softmax(data);
  };
  return async (texts, pairs) => {
    // One input per run: dynamic int8 quantization scales activations over the whole input tensor,
    // so in a padded batch a text's probabilities would depend on the texts read with it.
    const out: number[][] = [];
    for (const [i, text] of texts.entries()) out.push(await run(text, pairs?.[i]));
    return out;
  };
}
