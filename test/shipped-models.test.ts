import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CitetraceError } from '../src/domain/index.js';
import { JUDGE_MODEL, loadSupportJudge } from '../src/judge/index.js';
import type { PinnedModelFolder } from '../src/model/index.js';
import { INJECTION_MODEL, loadInjectionDetector } from '../src/policy/index.js';
import { LANGUAGE_MODEL, loadLanguageModel, loadScopeClassifier, SCOPE_MODEL } from '../src/scope/index.js';
import { tempDir } from './helpers.js';

const ONNX_FILES = ['config.json', 'model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json'];

describe.each([
  ['scope classifier', SCOPE_MODEL, loadScopeClassifier, ONNX_FILES, 'model_quantized.onnx'],
  ['support judge', JUDGE_MODEL, loadSupportJudge, ONNX_FILES, 'model_quantized.onnx'],
  ['injection detector', INJECTION_MODEL, (f: PinnedModelFolder) => Promise.resolve().then(() => loadInjectionDetector(f)), ['weights.f32'], 'weights.f32'],
] as const)('the shipped %s', (what, folder: PinnedModelFolder, load: (f: PinnedModelFolder) => Promise<unknown>, expectedFiles: readonly string[], altered: string) => {
  it('is the pinned manifest, and every file matches the hash the manifest gives it', async () => {
    const manifest = await readFile(path.join(folder.dir, 'manifest.json'));
    expect(createHash('sha256').update(manifest).digest('hex')).toBe(folder.manifestSha256);
    const files = (JSON.parse(manifest.toString('utf8')) as { files: Record<string, string> }).files;
    expect(Object.keys(files).sort()).toEqual(expectedFiles);
    for (const [name, sha] of Object.entries(files)) expect(createHash('sha256').update(await readFile(path.join(folder.dir, name))).digest('hex'), name).toBe(sha);
  });

  it('refuses a missing or altered file with one line naming the file and the expected hash (exit 2)', async () => {
    const missing = path.join(await tempDir(), 'absent');
    await expect(load({ ...folder, dir: missing })).rejects.toThrow(
      new CitetraceError('MODEL_MISMATCH', `${path.join(missing, 'manifest.json')}: the ${what} file is missing (expected sha256 ${folder.manifestSha256})`),
    );
    const copy = path.join(await tempDir(), 'model');
    await cp(folder.dir, copy, { recursive: true });
    const model = path.join(copy, altered);
    const bytes = await readFile(model);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
    await writeFile(model, bytes);
    const error = (await load({ ...folder, dir: copy }).catch((e: unknown) => e)) as CitetraceError;
    expect(error).toBeInstanceOf(CitetraceError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(new RegExp(`^${model}: sha256 [0-9a-f]{64} is not the pinned [0-9a-f]{64}$`, 'u'));
  });
});

describe("the language identifier's database", () => {
  it('is the pinned file, and a flipped byte stops loading with one line (exit 2)', async () => {
    expect(createHash('sha256').update(await readFile(LANGUAGE_MODEL.database)).digest('hex')).toBe(LANGUAGE_MODEL.sha256);
    const copy = path.join(await tempDir(), 'eld-small.json');
    const bytes = await readFile(LANGUAGE_MODEL.database);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
    await writeFile(copy, bytes);
    const error = (await loadLanguageModel({ database: copy, sha256: LANGUAGE_MODEL.sha256 }).catch((e: unknown) => e)) as CitetraceError;
    expect(error).toBeInstanceOf(CitetraceError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(new RegExp(`^${copy}: sha256 [0-9a-f]{64} is not the pinned ${LANGUAGE_MODEL.sha256}$`, 'u'));
  });
});

describe('a shipped model scores each input on its own', () => {
  // Dynamic int8 quantization scales activations over the whole input tensor: read in a padded
  // batch, a text's score moved with its neighbours (up to 0.44 for the judge, 0.54 for scope).
  it('gives a text the same score alone and read with longer and shorter texts', async () => {
    const judge = await loadSupportJudge(JUDGE_MODEL);
    const question = 'how much do you charge if i miss my appointment';
    const units = [
      'Missed appointments: a patient who does not arrive and does not cancel is charged a $40 fee.',
      'Hours: the desk is open 8 to 5.',
      `Parking: ${'the garage on the east side of the building has spaces for patients and visitors, with ramps and lifts, '.repeat(4)}`,
    ];
    const together = await judge.score(question, units);
    for (const [i, unit] of units.entries()) expect(together[i]).toBe((await judge.score(question, [unit]))[0]);
    const scope = await loadScopeClassifier(SCOPE_MODEL);
    const messages = ['can i reschedule my physical', `i have a question about parking ${'and about the bus routes and the ramps '.repeat(6)}`];
    const classified = await scope.classify(messages);
    for (const [i, message] of messages.entries()) expect(classified[i]).toEqual((await scope.classify([message]))[0]);
  });
});
