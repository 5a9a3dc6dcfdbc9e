import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CitetraceError } from '../src/domain/index.js';
import { JUDGE_MODEL, loadSupportJudge } from '../src/judge/index.js';
import type { PinnedModelFolder } from '../src/model/index.js';
import { loadScopeClassifier, SCOPE_MODEL } from '../src/scope/index.js';
import { tempDir } from './helpers.js';

describe.each([
  ['scope classifier', SCOPE_MODEL, loadScopeClassifier],
  ['support judge', JUDGE_MODEL, loadSupportJudge],
] as const)('the shipped %s', (what, folder: PinnedModelFolder, load: (f: PinnedModelFolder) => Promise<unknown>) => {
  it('is the pinned manifest, and every file matches the hash the manifest gives it', async () => {
    const manifest = await readFile(path.join(folder.dir, 'manifest.json'));
    expect(createHash('sha256').update(manifest).digest('hex')).toBe(folder.manifestSha256);
    const files = (JSON.parse(manifest.toString('utf8')) as { files: Record<string, string> }).files;
    expect(Object.keys(files).sort()).toEqual(['config.json', 'model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    for (const [name, sha] of Object.entries(files)) expect(createHash('sha256').update(await readFile(path.join(folder.dir, name))).digest('hex'), name).toBe(sha);
  });

  it('refuses a missing or altered file with one line naming the file and the expected hash (exit 2)', async () => {
    const missing = path.join(await tempDir(), 'absent');
    await expect(load({ ...folder, dir: missing })).rejects.toThrow(
      new CitetraceError('MODEL_MISMATCH', `${path.join(missing, 'manifest.json')}: the ${what} file is missing (expected sha256 ${folder.manifestSha256})`),
    );
    const copy = path.join(await tempDir(), 'model');
    await cp(folder.dir, copy, { recursive: true });
    const model = path.join(copy, 'model_quantized.onnx');
    const bytes = await readFile(model);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
    await writeFile(model, bytes);
    const error = (await load({ ...folder, dir: copy }).catch((e: unknown) => e)) as CitetraceError;
    expect(error).toBeInstanceOf(CitetraceError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(new RegExp(`^${model}: sha256 [0-9a-f]{64} is not the pinned [0-9a-f]{64}$`, 'u'));
  });
});
