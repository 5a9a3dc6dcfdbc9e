import path from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import { wrapError } from '../domain/index.js';
import { inferenceThread } from '../model/inference-thread.js';
import { placed } from '../model/index.js';
import type { Embedder } from './embedder.js';
import { MINILM, type ProvisionedModel } from './provision.js';

const BATCH = 32;

/** Where the embedding session is made from: the provisioned model folder and its thread count. */
export interface EmbedderSpec {
  readonly dir: string;
  readonly threads: number;
}

/** Unit-length vectors of one batch of texts. */
export type EmbedRun = (texts: readonly string[]) => Promise<Float32Array[]>;

/**
 * A transformers.js feature-extraction session in this thread (the inference thread builds the
 * same). Remote models are disabled before anything loads: the model is read from the provisioned
 * folder or not at all.
 */
export async function createEmbedRun(spec: EmbedderSpec): Promise<EmbedRun> {
  // Loaded here, not at the top: a process whose models run on the inference thread never needs it.
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = path.dirname(spec.dir);
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await pipeline('feature-extraction', path.basename(spec.dir), {
      dtype: 'q8',
      session_options: { intraOpNumThreads: spec.threads, interOpNumThreads: 1 },
    });
  } catch (error) {
    throw wrapError('MODEL_UNAVAILABLE', `cannot load the embedding model from ${spec.dir}`, error);
  }
  return async (texts) => {
    const tensor = await extractor([...texts], { pooling: 'mean', normalize: true });
    const data = tensor.data as Float32Array;
    const dims = MINILM.dimensions;
    const out: Float32Array[] = [];
    for (let row = 0; row * dims < data.length; row += 1) out.push(data.slice(row * dims, (row + 1) * dims));
    return out;
  };
}

/** A local sentence embedder on transformers.js (onnxruntime-node, CPU), in this thread or on the inference thread. */
export async function createTransformersEmbedder(options: {
  readonly model: ProvisionedModel;
  /** onnxruntime intra-op threads per call (default 1). */
  readonly threads?: number;
  /** Run it on the process's inference thread (src/model/inference-thread.ts), off the event loop. */
  readonly onThread?: boolean;
  /** Return before the session is built (see SessionPlacement). */
  readonly onBuilding?: (built: Promise<unknown>) => void;
}): Promise<Embedder> {
  const spec: EmbedderSpec = { dir: options.model.dir, threads: options.threads ?? 1 };
  const run = await placed(options.onThread === true ? inferenceThread().embedder(spec) : createEmbedRun(spec), options);
  return {
    modelId: MINILM.name,
    weightsSha256: options.model.weightsSha256,
    dimensions: MINILM.dimensions,
    async embed({ texts, signal }) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        signal?.throwIfAborted();
        out.push(...(await run(texts.slice(i, i + BATCH))));
      }
      return out;
    },
  };
}
