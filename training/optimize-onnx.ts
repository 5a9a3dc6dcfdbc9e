/**
 * Ship a model folder's int8 ONNX graph already optimized: onnxruntime-node (the runtime the product
 * runs it with) applies its extended graph optimizations (attention, layer-norm and GELU fusions,
 * constant folding) once, here, and saves the result, so that a process loading the model does not
 * redo them at every start (about 50 ms of a cold `citetrace ask` per MiniLM model;
 * docs/measurements.md). Extended, not all: the all level adds layout changes tied to the CPU it
 * ran on. The saved graph is what the runtime builds from the original, so it must score exactly
 * alike: the script runs both on a sample of inputs and refuses (exit 2, files untouched) when any
 * logit differs. Then it rewrites model_quantized.onnx and its hash in manifest.json, and prints
 * the manifest's new sha256, which the code pins.
 *
 * Run: npx tsx training/optimize-onnx.ts MODEL_DIR   (train.sh runs it on every model it writes)
 */
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { digestOf } from '../src/model/download.js';

const MODEL = 'model_quantized.onnx';
const SAMPLE_LENGTHS = [3, 17, 64, 128];
const sha256 = (bytes: Uint8Array): string => digestOf('sha256', bytes);

/** Token ids from a fixed sequence (no randomness: the same check every run), [CLS] … [SEP]. */
function feeds(length: number): Record<string, ort.Tensor> {
  const ids = BigInt64Array.from({ length }, (_, i) => (i === 0 ? 101n : i === length - 1 ? 102n : BigInt(1000 + ((i * 7919) % 28000))));
  const types = BigInt64Array.from({ length }, (_, i) => (i > length / 2 ? 1n : 0n));
  return {
    input_ids: new ort.Tensor('int64', ids, [1, length]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(length).fill(1n), [1, length]),
    token_type_ids: new ort.Tensor('int64', types, [1, length]),
  };
}

async function logits(model: Uint8Array): Promise<number[]> {
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const out: number[] = [];
  for (const length of SAMPLE_LENGTHS) {
    const result = await session.run(feeds(length));
    out.push(...Array.from(result[session.outputNames[0] ?? 'logits']?.data as Float32Array));
  }
  await session.release();
  return out;
}

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: npx tsx training/optimize-onnx.ts MODEL_DIR');
  process.exit(2);
}
const modelFile = path.join(dir, MODEL);
const manifestFile = path.join(dir, 'manifest.json');
const original = await readFile(modelFile);
const manifestText = await readFile(manifestFile, 'utf8');
const before = sha256(original);
if (!manifestText.includes(`"${before}"`)) {
  console.error(`${manifestFile}: does not pin ${MODEL} as it is (sha256 ${before})`);
  process.exit(2);
}
const work = await mkdtemp(path.join(os.tmpdir(), 'citetrace-optimize-'));
try {
  const optimizedFile = path.join(work, MODEL);
  await ort.InferenceSession.create(original, { graphOptimizationLevel: 'extended', optimizedModelFilePath: optimizedFile, intraOpNumThreads: 1 });
  const optimized = await readFile(optimizedFile);
  const [want, got] = [await logits(original), await logits(optimized)];
  const differ = want.findIndex((value, i) => !Object.is(value, got[i]));
  if (differ >= 0 || want.length !== got.length) {
    console.error(`${modelFile}: the optimized graph scores differently (logit ${differ}: ${want[differ]} vs ${got[differ]}); left as it was`);
    process.exitCode = 2;
  } else {
    const after = sha256(optimized);
    // Model first, then the manifest that pins it: a stop between the two leaves a mismatch the loader names, never a silent change.
    await writeFile(`${modelFile}.tmp`, optimized);
    await rename(`${modelFile}.tmp`, modelFile);
    await writeFile(manifestFile, manifestText.replace(`"${before}"`, `"${after}"`));
    console.log(`${modelFile}: optimized, ${original.length} -> ${optimized.length} bytes, identical logits on ${want.length} outputs`);
    console.log(`${manifestFile}: sha256 ${sha256(await readFile(manifestFile))}`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
