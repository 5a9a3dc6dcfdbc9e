import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { DEFAULT_BEYOND_K_THRESHOLD, loadConfig, type Config } from '../src/config/index.js';
import type { Embedder } from '../src/embed/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { createSqliteKeyStore, type KeyRole, type KeyStore } from '../src/auth/index.js';
import { createService, type Service } from '../src/http/index.js';
import type { Generator } from '../src/generate/index.js';
import { createEmbedder, openRuntime, type Runtime } from '../src/main.js';
import { createAssistant, type Assistant } from '../src/pipeline/index.js';
import { deploymentNames } from '../src/policy/index.js';
import { createHybridRetriever } from '../src/retrieve/index.js';
import type { Telemetry } from '../src/telemetry/index.js';
import { createRedactor, type TraceStore } from '../src/trace/index.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEMO_CORPUS = path.join(ROOT, 'corpus');
export const TODAY = '2026-12-02';
export const CLOCK = (): Date => new Date(`${TODAY}T12:00:00.000Z`);

const cleanup: string[] = [];
afterAll(async () => {
  await Promise.all(cleanup.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export async function tempDir(prefix = 'citetrace-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanup.push(dir);
  return dir;
}

/** A private, writable copy of the demo policy repository. */
export async function copyCorpus(): Promise<string> {
  const dir = path.join(await tempDir('citetrace-corpus-'), 'corpus');
  await cp(DEMO_CORPUS, dir, { recursive: true });
  return dir;
}

export function testConfig(dataDir: string, env: Readonly<Record<string, string>> = {}): Config {
  return loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir, ...env } });
}

let embedder: Promise<Embedder> | undefined;
/** The real MiniLM embedder, loaded once per test file. */
export function realEmbedder(): Promise<Embedder> {
  embedder ??= createEmbedder(testConfig(os.tmpdir()));
  return embedder;
}

/** Ingest a repository into a fresh data folder and open the pipeline on it with a fixed clock. */
export async function demoRuntime(options: { readonly corpus?: string } = {}): Promise<{ runtime: Runtime; dataDir: string; corpus: string }> {
  const dataDir = await tempDir('citetrace-data-');
  const corpus = options.corpus ?? DEMO_CORPUS;
  const e = await realEmbedder();
  await ingestRepository({ root: corpus, dataDir, embedder: e, now: CLOCK() });
  const runtime = await openRuntime({ config: testConfig(dataDir), embedder: e, clock: CLOCK });
  return { runtime, dataDir, corpus };
}

/** sha256 of every file under a folder, by relative path: "unchanged byte for byte" made checkable. */
export async function snapshotFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256').update(await readFile(file)).digest('hex');
  }
  return out;
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the real `citetrace` executable in a child process. */
export function runBin(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bin', 'citetrace.js'), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr: stderr.split('\n').filter((l) => !l.startsWith('npm warn')).join('\n') });
      },
    );
  });
}

/** A live service on the demo corpus with its own data folder, listening on a free loopback port. */
export interface TestService {
  readonly service: Service;
  readonly keys: KeyStore;
  readonly base: string;
  readonly dataDir: string;
  keyFor(role: KeyRole): string;
  close(): Promise<void>;
}

export async function startTestService(
  options: { readonly rateLimitPerMinute?: number; readonly listen?: boolean; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<TestService> {
  const dataDir = await tempDir('citetrace-service-');
  const embedder = await realEmbedder();
  await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder, now: CLOCK() });
  const config = testConfig(dataDir, options.env);
  const keys = createSqliteKeyStore({ file: config.keys });
  const service = await createService({ config, embedder, keys, clock: CLOCK, rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000 });
  const base = options.listen === false ? '' : await service.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    service,
    keys,
    base,
    dataDir,
    keyFor: (role) => keys.create({ role, label: 'test' }).key,
    async close() {
      await service.close();
      keys.close();
    },
  };
}

/** The pipeline over a runtime's index with a test's own generator, store and telemetry (default: none). */
export function assistantOver(
  runtime: Runtime,
  embedder: Embedder,
  parts: { readonly generator: Generator; readonly store: TraceStore; readonly telemetry?: Telemetry; readonly beyondKThreshold?: number; readonly ready?: Promise<void> },
): Assistant {
  const redactor = createRedactor(deploymentNames(runtime.index.manifest.assistant));
  return createAssistant({
    assistant: runtime.index.manifest.assistant,
    retriever: createHybridRetriever({ index: runtime.index, embedder }),
    inForce: (query) => runtime.index.inForce(query),
    router: runtime.router,
    judge: runtime.judge,
    generator: parts.generator,
    store: parts.store,
    embedderId: embedder.modelId,
    indexSnapshot: runtime.index.snapshotId,
    settings: { candidates: 8, k: 5, judgeUnits: 12, beyondKThreshold: parts.beyondKThreshold ?? DEFAULT_BEYOND_K_THRESHOLD },
    clock: CLOCK,
    newId: randomUUID,
    redact: (text) => redactor(text).text,
    ...(parts.telemetry ? { telemetry: parts.telemetry } : {}),
    ...(parts.ready ? { ready: parts.ready } : {}),
  });
}

/** A deterministic embedder for tests where the vectors play no part (index evidence, manifests): letter codes summed into 8 slots. */
export function hashEmbedder(): Embedder {
  return {
    modelId: 'test-hash-embedder',
    weightsSha256: 'a'.repeat(64),
    dimensions: 8,
    embed: ({ texts }) =>
      Promise.resolve(
        texts.map((t) => {
          const v = new Float32Array(8);
          for (let i = 0; i < t.length; i++) v[i % 8] = (v[i % 8] ?? 0) + t.charCodeAt(i);
          const norm = Math.hypot(...v);
          return v.map((x) => x / norm);
        }),
      ),
  };
}
