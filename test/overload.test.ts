import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteKeyStore, type KeyStore } from '../src/auth/index.js';
import { CitetraceError } from '../src/domain/index.js';
import { createAdmission } from '../src/http/admission.js';
import { createService, type Service } from '../src/http/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { CLOCK, DEMO_CORPUS, realEmbedder, tempDir, testConfig } from './helpers.js';

/** A promise with its resolve exposed: work that finishes when the test says so. */
function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve: (value: string) => void = () => undefined;
  const promise = new Promise<string>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('admission (bounded in-flight work and queue)', () => {
  it('runs up to maxInflight, queues up to maxQueue in order, refuses the rest at once', async () => {
    const admission = createAdmission({ maxInflight: 2, maxQueue: 1 });
    const works = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = works.map((w, i) =>
      admission.run({
        work: () => {
          started.push(i);
          return w.promise;
        },
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(admission.stats()).toEqual({ inflight: 2, queued: 1 });
    expect(admission.full()).toBe(true);
    const refused = await admission.run({ work: () => Promise.resolve('never') });
    expect(refused).toEqual({ status: 'refused', retryAfterSeconds: 1 });
    works[0]?.resolve('a');
    expect(await runs[0]).toEqual({ status: 'done', value: 'a' });
    expect(started).toEqual([0, 1, 2]);
    expect(admission.stats()).toEqual({ inflight: 2, queued: 0 });
    works[1]?.resolve('b');
    works[2]?.resolve('c');
    expect(await Promise.all(runs.slice(1))).toEqual([{ status: 'done', value: 'b' }, { status: 'done', value: 'c' }]);
    expect(admission.stats()).toEqual({ inflight: 0, queued: 0 });
  });

  it('releases the slot when work fails, and skips a waiter whose client left', async () => {
    const admission = createAdmission({ maxInflight: 1, maxQueue: 1 });
    const first = deferred();
    const failing = admission.run({ work: () => first.promise.then(() => Promise.reject(new Error('boom'))) });
    const gone = new AbortController();
    let ranAbandoned = false;
    const waiter = admission.run({
      work: () => {
        ranAbandoned = true;
        return Promise.resolve('x');
      },
      signal: gone.signal,
    });
    gone.abort();
    first.resolve('');
    await expect(failing).rejects.toThrow('boom');
    expect(await waiter).toEqual({ status: 'abandoned' });
    expect(ranAbandoned).toBe(false);
    expect(admission.stats()).toEqual({ inflight: 0, queued: 0 });
  });

  it('with no slot at all refuses everything with a Retry-After of 1 s, never NaN (bench/overload.ts --refuse-all)', async () => {
    const admission = createAdmission({ maxInflight: 0, maxQueue: 0 });
    expect(admission.full()).toBe(true);
    expect(await admission.run({ work: () => Promise.resolve('never') })).toEqual({ status: 'refused', retryAfterSeconds: 1 });
    expect(admission.retryAfterSeconds()).toBe(1);
  });

  it('refuses everything beyond the slots when the queue is 0', async () => {
    const admission = createAdmission({ maxInflight: 1, maxQueue: 0 });
    const work = deferred();
    const running = admission.run({ work: () => work.promise });
    expect((await admission.run({ work: () => Promise.resolve('') })).status).toBe('refused');
    work.resolve('done');
    expect((await running).status).toBe('done');
  });
});

describe('HTTP service under overload (live server, 1 slot, queue of 1)', () => {
  let service: Service;
  let keys: KeyStore;
  let base: string;
  let patient: string;
  let occupied: Server;

  beforeAll(async () => {
    const dataDir = await tempDir('citetrace-overload-');
    const embedder = await realEmbedder();
    await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder, now: CLOCK() });
    const config = { ...testConfig(dataDir), maxInflight: 1, maxQueue: 1 };
    keys = createSqliteKeyStore({ file: config.keys });
    service = await createService({ config, embedder, keys, clock: CLOCK, rateLimitPerMinute: 100_000 });
    patient = keys.create({ role: 'patient', label: 'test' }).key;
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen({ host: '127.0.0.1', port: 0 }, resolve));
  });
  afterAll(async () => {
    await service.close();
    keys.close();
    await new Promise((resolve) => occupied.close(resolve));
  });

  it('names host and port when the port is taken', async () => {
    const address = occupied.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const failed = await service.listen({ host: '127.0.0.1', port }).then(() => null, (error: unknown) => error);
    expect(failed).toBeInstanceOf(CitetraceError);
    expect((failed as CitetraceError).exitCode).toBe(2);
    expect((failed as CitetraceError).message).toBe(`cannot listen on 127.0.0.1:${port}: the port is already in use (choose another with --port or PORT)`);
    base = await service.listen({ host: '127.0.0.1', port: 0 });
  });

  const ask = (question: string) =>
    fetch(`${base}/v1/ask`, {
      method: 'POST',
      headers: { authorization: `Bearer ${patient}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question }),
    });

  it('answers what fits and refuses the rest with 503, Retry-After and a problem body; refused questions leave no trace', async () => {
    const before = (await service.context.runtime().store.counts()).reduce((s, c) => s + c.count, 0);
    const responses = await Promise.all(Array.from({ length: 40 }, (_v, i) => ask(i % 2 === 0 ? 'How much is the no-show fee?' : 'What are the Eastside Clinic hours?')));
    const statuses = responses.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    const answered = statuses.filter((s) => s === 200).length;
    expect(answered).toBeGreaterThanOrEqual(2);
    for (const res of responses.filter((r) => r.status === 503)) {
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/u);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ status: 503, title: 'Service unavailable', type: 'https://citetrace.dev/problems/overloaded' });
      expect(body.detail).toMatch(/^overloaded: 1 questions in progress and 1 waiting; retry in \d+ s$/u);
    }
    await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.json()));
    const after = (await service.context.runtime().store.counts()).reduce((s, c) => s + c.count, 0);
    expect(after - before).toBe(answered);
    // Slots are given back: once the burst is over, a question is answered again.
    expect((await ask('How much is the no-show fee?')).status).toBe(200);
  });

  it('documents the 503 in the OpenAPI document', async () => {
    const spec = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, { post?: { responses: Record<string, unknown> } }> };
    expect(Object.keys(spec.paths['/v1/ask']?.post?.responses ?? {})).toContain('503');
  });
});
