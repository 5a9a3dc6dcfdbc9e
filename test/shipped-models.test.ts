import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CitetraceError } from '../src/domain/index.js';
import { JUDGE_MODEL, loadSupportJudge } from '../src/judge/index.js';
import { loadPinnedClassifier, ModelManifestSchema, type PinnedModelFolder } from '../src/model/index.js';
import { INJECTION_MODEL, loadInjectionDetector } from '../src/policy/index.js';
import { LANGUAGE_MODEL, loadLanguageModel, loadScopeClassifier, SCOPE_MODEL, SCOPE_URGENT_MODEL } from '../src/scope/index.js';
import { tempDir } from './helpers.js';

const ONNX_FILES = ['config.json', 'model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json'];

/** The judge's two members, each a pinned model folder beside the cascade's manifest, which pins them. */
const cascade = JSON.parse(await readFile(path.join(JUDGE_MODEL.dir, 'manifest.json'), 'utf8')) as { second_from: number; members: Record<'first' | 'second', { dir: string; manifest_sha256: string }> };
const JUDGE_MEMBERS: readonly PinnedModelFolder[] = [cascade.members.first, cascade.members.second].map((m) => ({ dir: path.join(JUDGE_MODEL.dir, m.dir), manifestSha256: m.manifest_sha256 }));

/** Flip one byte of a model file, then load: refused with one line naming the file (exit 2). */
async function expectAlteredRefused(file: string, load: () => Promise<unknown>): Promise<void> {
  const bytes = await readFile(file);
  bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
  await writeFile(file, bytes);
  const error = (await load().catch((e: unknown) => e)) as CitetraceError;
  expect(error).toBeInstanceOf(CitetraceError);
  expect(error.exitCode).toBe(2);
  expect(error.message).toMatch(new RegExp(`^${file}: sha256 [0-9a-f]{64} is not the pinned [0-9a-f]{64}$`, 'u'));
}

describe.each([
  ['scope classifier', SCOPE_MODEL, loadScopeClassifier, ONNX_FILES, 'model_quantized.onnx'],
  // The second scope classifier (it can only add an urgent routing), checked the same way under the same name.
  ['scope classifier', SCOPE_URGENT_MODEL, loadScopeClassifier, ONNX_FILES, 'model_quantized.onnx'],
  ...JUDGE_MEMBERS.map((folder) => ['support judge', folder, (f: PinnedModelFolder) => loadPinnedClassifier({ folder: f, schema: ModelManifestSchema, what: 'support judge' }), ONNX_FILES, 'model_quantized.onnx'] as const),
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
    await expectAlteredRefused(path.join(copy, altered), () => load({ ...folder, dir: copy }));
  });
});

describe('the shipped support judge (two members read together)', () => {
  it('is the pinned manifest, and a flipped byte in either member stops loading with one line naming the file (exit 2)', async () => {
    expect(createHash('sha256').update(await readFile(path.join(JUDGE_MODEL.dir, 'manifest.json'))).digest('hex')).toBe(JUDGE_MODEL.manifestSha256);
    for (const member of JUDGE_MEMBERS) {
      const copy = path.join(await tempDir(), 'judge');
      await cp(JUDGE_MODEL.dir, copy, { recursive: true });
      await expectAlteredRefused(path.join(copy, path.basename(member.dir), 'model_quantized.onnx'), () => loadSupportJudge({ ...JUDGE_MODEL, dir: copy }));
    }
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

  it('the judge reads its second member only where the first scores at second_from or more, and averages their logits there', async () => {
    const judge = await loadSupportJudge(JUDGE_MODEL);
    const [first, second] = await Promise.all(JUDGE_MEMBERS.map((folder) => loadPinnedClassifier({ folder, schema: ModelManifestSchema, what: 'support judge' })));
    const question = 'how much do you charge if i miss my appointment';
    const units = ['Missed appointments: a patient who does not arrive and does not cancel is charged a $40 fee.', 'Cancellations: call at least 24 hours ahead.', 'Parking: the garage on Elm Street is free.'];
    const asked = units.map(() => question);
    const [p1, p2] = await Promise.all([first?.probabilities(asked, units), second?.probabilities(asked, units)]);
    const logit = (p: readonly number[] | undefined): number => Math.log(p?.[1] ?? 0) - Math.log(p?.[0] ?? 0);
    const expected = (p1 ?? []).map((p, i) => ((p[1] ?? 0) >= cascade.second_from ? 1 / (1 + Math.exp(-(logit(p) + logit(p2?.[i])) / 2)) : p[1]));
    // Both branches are exercised: a unit the second member reads and one it does not.
    expect((p1 ?? []).map((p) => (p[1] ?? 0) >= cascade.second_from)).toEqual([true, false, true]);
    expect(await judge.score(question, units)).toEqual(expected);
  });
});
