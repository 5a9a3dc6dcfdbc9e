import path from 'node:path';
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { wrapError } from '../domain/index.js';
import type { Embedder } from './embedder.js';
import { MINILM, type ProvisionedModel } from './provision.js';

const BATCH = 32;

/**
 * A local sentence embedder on transformers.js (onnxruntime-node, CPU). Remote models are
 * disabled before anything loads: the model is read from the provisioned folder or not at all.
 */
export async function createTransformersEmbedder(options: {
  readonly model: ProvisionedModel;
  /** onnxruntime intra-op threads per call (default 1). */
  readonly threads?: number;
}): Promise<Embedder> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = path.dirname(options.model.dir);
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await pipeline('feature-extraction', path.basename(options.model.dir), {
      dtype: 'q8',
      session_options: { intraOpNumThreads: options.threads ?? 1, interOpNumThreads: 1 },
    });
  } catch (error) {
    throw wrapError('MODEL_UNAVAILABLE', `cannot load the embedding model from ${options.model.dir}`, error);
  }
  return {
    modelId: MINILM.name,
    weightsSha256: options.model.weightsSha256,
    dimensions: MINILM.dimensions,
    async embed({ texts, signal }) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        signal?.throwIfAborted();
        const tensor = await extractor([...texts.slice(i, i + BATCH)], { pooling: 'mean', normalize: true });
        const data = tensor.data as Float32Array;
        const dims = MINILM.dimensions;
        for (let row = 0; row * dims < data.length; row += 1) out.push(data.slice(row * dims, (row + 1) * dims));
      }
      return out;
    },
  };
}
