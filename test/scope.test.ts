import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CitetraceError } from '../src/domain/index.js';
import { createScopeRouterFor } from '../src/main.js';
import { normalizeQuestion } from '../src/policy/index.js';
import { loadScopeClassifier, SCOPE_MODEL, segmentsOf, type ScopeRouter } from '../src/scope/index.js';
import { tempDir, testConfig } from './helpers.js';

const phrasings = parse(readFileSync(new URL('./fixtures/scope-phrasings.yaml', import.meta.url), 'utf8')) as { emergency: string[] };
const ASSISTANT = { organization: 'Test Health', appointment_channel: 'call 555-0100', entities: {} };

let router: ScopeRouter;
beforeAll(async () => {
  router = await createScopeRouterFor(ASSISTANT, testConfig(await tempDir()));
});

const route = (message: string) => router.route({ text: normalizeQuestion(message).normalized });

describe('the shipped scope classifier', () => {
  it('is the pinned manifest, and every file matches the hash the manifest gives it', async () => {
    const manifest = await readFile(path.join(SCOPE_MODEL.dir, 'manifest.json'));
    expect(createHash('sha256').update(manifest).digest('hex')).toBe(SCOPE_MODEL.manifestSha256);
    const files = (JSON.parse(manifest.toString('utf8')) as { files: Record<string, string> }).files;
    expect(Object.keys(files).sort()).toEqual(['config.json', 'model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    for (const [name, sha] of Object.entries(files)) expect(createHash('sha256').update(await readFile(path.join(SCOPE_MODEL.dir, name))).digest('hex'), name).toBe(sha);
  });

  it('refuses a missing or altered file with one line naming the file and the expected hash (exit 2)', async () => {
    const load = (dir: string) => loadScopeClassifier({ dir, manifestSha256: SCOPE_MODEL.manifestSha256 });
    const missing = path.join(await tempDir(), 'absent');
    await expect(load(missing)).rejects.toThrow(
      new CitetraceError('MODEL_MISMATCH', `${path.join(missing, 'manifest.json')}: the scope classifier file is missing (expected sha256 ${SCOPE_MODEL.manifestSha256})`),
    );
    const copy = path.join(await tempDir(), 'scope');
    await cp(SCOPE_MODEL.dir, copy, { recursive: true });
    const model = path.join(copy, 'model_quantized.onnx');
    const bytes = await readFile(model);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 1;
    await writeFile(model, bytes);
    const error = (await load(copy).catch((e: unknown) => e)) as CitetraceError;
    expect(error).toBeInstanceOf(CitetraceError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(new RegExp(`^${model}: sha256 [0-9a-f]{64} is not the pinned [0-9a-f]{64}$`, 'u'));
  });
});

describe('scope routing', () => {
  it('routes every dev emergency phrasing away from an appointment answer', async () => {
    for (const q of phrasings.emergency) expect(['emergency', 'crisis'], q).toContain((await route(q)).route);
  });

  it('keeps safety first when a booking request is attached, before or after', async () => {
    for (const q of [
      "I've been thinking about ending my life. Can I get an appointment with someone this week?",
      'is the clinic open today? my husband hit his head, he is on blood thinners and now he keeps throwing up',
    ]) {
      expect(['emergency', 'crisis'], q).toContain((await route(q)).route);
    }
  });

  it('reads a long message sentence by sentence, so a crisis line anywhere in it is routed', async () => {
    const filler = 'I have a question about parking at the clinic and whether the garage validates tickets for patients. ';
    const message = `${filler.repeat(40)}Honestly everyone would be better off without me. ${filler.repeat(40)}`;
    expect(message.length).toBeGreaterThan(8000);
    expect(segmentsOf(normalizeQuestion(message).normalized).length).toBeGreaterThan(40);
    const r = await route(message);
    expect(r.route).toBe('crisis');
    expect(r.segments).toBeGreaterThan(40);
  });

  it('keeps administrative questions with clinical words in scope', async () => {
    for (const q of ['Can I get a Spanish interpreter for my appointment?', 'What are the lab hours for a fasting blood draw?']) {
      expect((await route(q)).route, q).toBe('in_scope');
    }
  });

  it('answers emoji, mixed scripts and punctuation with a routing decision, never a crash', async () => {
    for (const q of ['🙂', '¿Puedo cambiar mi cita? 予約を変更できますか', '?!?!']) {
      expect(['in_scope', 'clinical', 'emergency', 'crisis']).toContain((await route(q)).route);
    }
  });
});
