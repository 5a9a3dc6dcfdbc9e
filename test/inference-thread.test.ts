import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CitetraceError } from '../src/domain/index.js';
import { JUDGE_MODEL, loadSupportJudge } from '../src/judge/index.js';
import { createEmbedder } from '../src/main.js';
import { inferenceThread } from '../src/model/inference-thread.js';
import { loadScopeClassifier, SCOPE_MODEL } from '../src/scope/index.js';
import { testConfig } from './helpers.js';

const QUESTION = 'can i bring my kid to my appointment at the harbor clinic on saturday';
const TEXTS = [
  'Harbor Clinic hours > Front desk: The front desk is open Monday through Friday from 7:30 am to 6 pm.',
  'Children may come to an adult visit with another adult who stays with them in the waiting room.',
  // Longer than the judge's max_length once paired: the pair is cut and closed with [SEP] on both threads.
  `Visitors > General: ${'Every visitor signs in at the front desk and wears a badge. '.repeat(20)}`,
];

describe('the inference thread', () => {
  it('gives the support judge and the scope classifier exactly the probabilities the main thread gives', async () => {
    const [judgeHere, judgeThere, scopeHere, scopeThere] = await Promise.all([
      loadSupportJudge({ ...JUDGE_MODEL, onThread: false }),
      loadSupportJudge({ ...JUDGE_MODEL, onThread: true }),
      loadScopeClassifier({ ...SCOPE_MODEL, onThread: false }),
      loadScopeClassifier({ ...SCOPE_MODEL, onThread: true }),
    ]);
    const judged = await judgeHere.score(QUESTION, TEXTS);
    expect(await judgeThere.score(QUESTION, TEXTS)).toEqual(judged);
    expect(judged.every((p) => p > 0 && p < 1)).toBe(true);
    const messages = [QUESTION, 'my dad cant move his left arm and his face looks droopy, is the clinic open', 'should i double my blood pressure pill'];
    expect(await scopeThere.classify(messages)).toEqual(await scopeHere.classify(messages));
  });

  it('embeds a question into the same vector, bit for bit, as the main thread', async () => {
    const inline = await createEmbedder(testConfig(os.tmpdir(), { CITETRACE_INFERENCE: 'inline' }));
    const threaded = await createEmbedder(testConfig(os.tmpdir(), { CITETRACE_INFERENCE: 'thread' }));
    const texts = [QUESTION, ...TEXTS];
    const [here, there] = [await inline.embed({ texts }), await threaded.embed({ texts })];
    expect(there.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex'))).toEqual(here.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')));
  });

  it('hands a model that cannot load, or whose bytes are not the pinned ones, back as one error line, and keeps serving the models it holds', async () => {
    const judge = await loadSupportJudge({ ...JUDGE_MODEL, onThread: true });
    // The thread reads and checks the files itself: a folder whose files match their hashes but hold no model.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-bad-model-'));
    const files: Record<string, string> = {};
    for (const [name, bytes] of [['model_quantized.onnx', '\x01\x02\x03'], ['tokenizer.json', '{}'], ['tokenizer_config.json', '{}']] as const) {
      await writeFile(path.join(dir, name), bytes);
      files[name] = createHash('sha256').update(bytes).digest('hex');
    }
    const spec = { dir, files, maxLength: 8, threads: 1, what: 'test model' };
    const unloadable = (await inferenceThread().classifier(spec).catch((e: unknown) => e)) as CitetraceError;
    expect(unloadable).toBeInstanceOf(CitetraceError);
    expect(unloadable.code).toBe('MODEL_UNAVAILABLE');
    expect(unloadable.message).toMatch(/^cannot load the test model .*model_quantized\.onnx: /u);
    const altered = (await inferenceThread().classifier({ ...spec, files: { ...files, 'model_quantized.onnx': '0'.repeat(64) } }).catch((e: unknown) => e)) as CitetraceError;
    expect(altered.code).toBe('MODEL_MISMATCH');
    expect(altered.message).toBe(`${path.join(dir, 'model_quantized.onnx')}: sha256 ${files['model_quantized.onnx'] ?? ''} is not the pinned ${'0'.repeat(64)}`);
    expect((await judge.score(QUESTION, TEXTS.slice(0, 1)))[0]).toBeGreaterThan(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('started without waiting (a one-shot command), a model resolves on its manifest alone; its calls and the handed-over build fail alike when its files are not the pinned ones', async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'citetrace-altered-judge-'));
    await cp(JUDGE_MODEL.dir, copy, { recursive: true });
    const onnx = path.join(copy, 'minilm', 'model_quantized.onnx');
    const bytes = await readFile(onnx);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
    await writeFile(onnx, bytes);
    for (const onThread of [true, false]) {
      const builds: Promise<unknown>[] = [];
      const judge = await loadSupportJudge({ ...JUDGE_MODEL, dir: copy, onThread, onBuilding: (built) => builds.push(built) });
      expect([judge.modelId, judge.sha256]).toEqual([expect.any(String), JUDGE_MODEL.manifestSha256]);
      expect(builds).toHaveLength(1);
      const line = new RegExp(`^${onnx}: sha256 [0-9a-f]{64} is not the pinned [0-9a-f]{64}$`, 'u');
      await expect(builds[0]).rejects.toThrow(line);
      await expect(judge.score(QUESTION, TEXTS)).rejects.toThrow(line);
    }
    // The same model, unaltered, scores exactly as one loaded the usual way.
    const builds: Promise<unknown>[] = [];
    const deferred = await loadSupportJudge({ ...JUDGE_MODEL, onThread: true, onBuilding: (built) => builds.push(built) });
    expect(await deferred.score(QUESTION, TEXTS)).toEqual(await (await loadSupportJudge({ ...JUDGE_MODEL, onThread: true })).score(QUESTION, TEXTS));
    await expect(builds[0]).resolves.toBeDefined();
    await rm(copy, { recursive: true, force: true });
  });
});
