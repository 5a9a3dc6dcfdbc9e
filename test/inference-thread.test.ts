import os from 'node:os';
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

  it('hands a model that cannot load back as one error line, and keeps serving the models it holds', async () => {
    const judge = await loadSupportJudge({ ...JUDGE_MODEL, onThread: true });
    const bad = { model: new Uint8Array([1, 2, 3]), tokenizer: {}, tokenizerConfig: {}, maxLength: 8, threads: 1, what: 'test model', file: '/nowhere/model.onnx' };
    const error = (await inferenceThread().classifier(bad).catch((e: unknown) => e)) as CitetraceError;
    expect(error).toBeInstanceOf(CitetraceError);
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toMatch(/^cannot load the test model \/nowhere\/model\.onnx: /u);
    expect((await judge.score(QUESTION, TEXTS.slice(0, 1)))[0]).toBeGreaterThan(0);
  });
});
