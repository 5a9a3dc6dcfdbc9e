import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceSchema } from '../src/domain/index.js';
import type { Service } from '../src/http/index.js';
import { startTestService, type TestService } from './helpers.js';

describe('HTTP service (live server)', () => {
  let t: TestService;
  let service: Service;
  let base: string;
  let patient: string;
  let staff: string;
  let operator: string;

  beforeAll(async () => {
    t = await startTestService();
    ({ service, base } = t);
    [patient, staff, operator] = [t.keyFor('patient'), t.keyFor('staff'), t.keyFor('operator')];
  });
  afterAll(() => t.close());

  const call = (method: string, path: string, key: string | null, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('answers with citations and a trace id; the role comes from the key, never the body', async () => {
    const res = await call('POST', '/v1/ask', patient, { question: 'What is the scheduling desk override code?', role: 'staff' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { trace_id: string; outcome: string; citations: { source_id: string }[] };
    expect(body.citations.map((c) => c.source_id)).not.toContain('scheduling-desk-overrides');
    const trace = TraceSchema.parse(await (await call('GET', `/v1/traces/${body.trace_id}`, operator)).json());
    expect(trace.role).toBe('patient');
    expect(trace.retrieved.map((r) => r.source_id)).not.toContain('scheduling-desk-overrides');
    const asStaff = (await (await call('POST', '/v1/ask', staff, { question: 'What is the scheduling desk override code?' })).json()) as { trace_id: string };
    const staffTrace = TraceSchema.parse(await (await call('GET', `/v1/traces/${asStaff.trace_id}`, operator)).json());
    expect(staffTrace.retrieved.map((r) => r.source_id)).toContain('scheduling-desk-overrides');
  });

  it('keeps the internal reason out of the patient response', async () => {
    const res = await call('POST', '/v1/ask', patient, { question: 'Can I pay my bill in bitcoin?' });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.outcome).toBe('abstain');
    expect(body).not.toHaveProperty('reason');
    expect(body.answer).toMatch(/555-0142/u);
  });

  const routes: [string, string, unknown?][] = [
    ['POST', '/v1/ask', { question: 'hours?' }],
    ['GET', '/v1/traces'],
    ['GET', '/v1/traces/00000000-0000-4000-8000-000000000000'],
    ['POST', '/v1/traces/00000000-0000-4000-8000-000000000000/verify'],
    ['GET', '/v1/sources'],
    ['GET', '/metrics'],
  ];
  it.each(routes)('%s %s: 401 without a key, 401 with an unknown key', async (method, path, body) => {
    for (const key of [null, 'ct_operator_nope']) {
      const res = await call(method, path, key, body);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/u);
    }
  });
  it.each(routes.slice(1))('%s %s: 403 for patient and staff keys', async (method, path) => {
    for (const key of [patient, staff]) expect((await call(method, path, key)).status).toBe(403);
  });

  it('console sign-in keeps a session token in the cookie, never the key; the API refuses it; signing out ends it', async () => {
    const form = (path: string, body: Record<string, string>, cookie?: string) =>
      fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) }, body: new URLSearchParams(body) });
    const signedIn = await form('/console/login', { key: operator });
    expect(signedIn.status).toBe(303);
    const set = signedIn.headers.get('set-cookie') ?? '';
    expect(set).toMatch(/^citetrace_session=cts_[\w-]+;/u);
    expect(set).toMatch(/Path=\/console;.*HttpOnly/u);
    expect(set).not.toContain(operator);
    const cookie = set.split(';')[0] ?? '';
    const console = (query = '') => fetch(`${base}/console${query}`, { redirect: 'manual', headers: { cookie } });
    expect((await console()).status).toBe(200);
    // The sign-in form hides the key as it is typed; a filter the console does not know is refused, not read as "any".
    expect(await (await fetch(`${base}/console/login`)).text()).toContain('<input type="password" name="key"');
    expect((await console('?outcome=&reason=')).status).toBe(200);
    expect((await console('?outcome=abstain')).status).toBe(200);
    const bogus = await console('?outcome=bogus');
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain('Unknown outcome filter');
    expect((await fetch(`${base}/v1/traces`, { headers: { cookie } })).status).toBe(401);
    expect((await form('/console/logout', {}, cookie)).status).toBe(303);
    const after = await console();
    expect(after.status).toBe(302);
    expect(after.headers.get('location')).toBe('/console/login');
  });

  it('a revoked key opens nothing: not the API, not a console session it had opened', async () => {
    const { key, record } = t.keys.create({ role: 'operator', label: 'to revoke' });
    expect((await call('GET', '/v1/sources', key)).status).toBe(200);
    const token = t.keys.openSession(record.id, new Date(Date.now() + 60_000));
    expect(t.keys.session(token, new Date())?.id).toBe(record.id);
    expect(t.keys.list().map((k) => k.id)).toContain(record.id);
    expect(t.keys.revoke(record.id)).toBe(true);
    expect(t.keys.revoke(record.id)).toBe(false);
    expect((await call('GET', '/v1/sources', key)).status).toBe(401);
    expect(t.keys.session(token, new Date())).toBeNull();
    expect(t.keys.list().map((k) => k.id)).not.toContain(record.id);
  });

  it('lists, filters and pages traces for operators', async () => {
    for (let i = 0; i < 3; i += 1) await call('POST', '/v1/ask', patient, { question: 'How much is the no-show fee?' });
    const page1 = (await (await call('GET', '/v1/traces?limit=2&source=cancellation-no-show', operator)).json()) as { traces: { cited_sources: string[] }[]; next_before: number | null };
    expect(page1.traces).toHaveLength(2);
    expect(page1.traces.every((t) => t.cited_sources.includes('cancellation-no-show'))).toBe(true);
    expect(page1.next_before).not.toBeNull();
    const page2 = (await (await call('GET', `/v1/traces?limit=2&source=cancellation-no-show&before=${page1.next_before ?? 0}`, operator)).json()) as { traces: unknown[] };
    expect(page2.traces.length).toBeGreaterThan(0);
    const abstained = (await (await call('GET', '/v1/traces?outcome=abstain&reason=NO_SUPPORT', operator)).json()) as { traces: { outcome: string }[] };
    expect(abstained.traces.every((t) => t.outcome === 'abstain')).toBe(true);
    expect((await call('GET', '/v1/traces?outcome=maybe', operator)).status).toBe(400);
  });

  it('verifies a stored trace and reports sources with stale flags', async () => {
    const asked = (await (await call('POST', '/v1/ask', patient, { question: 'How far ahead can I reschedule in the portal?' })).json()) as { trace_id: string };
    const verified = (await (await call('POST', `/v1/traces/${asked.trace_id}/verify`, operator)).json()) as { ok: boolean };
    expect(verified.ok).toBe(true);
    const sources = (await (await call('GET', '/v1/sources', operator)).json()) as { sources: { source_id: string; title: string; stale: boolean; revisions: unknown[] }[] };
    expect(sources.sources.find((s) => s.source_id === 'billing-contact')?.stale).toBe(true);
    // Titled as in force, not as the newer draft or future revision.
    expect(sources.sources.find((s) => s.source_id === 'cancellation-no-show')?.title).toBe('Cancellations, late cancellations and no-show fees');
    expect(sources.sources.find((s) => s.source_id === 'eastside-clinic-hours')?.title).toBe('Eastside Clinic hours');
    expect(sources.sources.find((s) => s.source_id === 'harbor-lab-hours')?.revisions).toHaveLength(2);
  });

  it('serves health, Prometheus metrics and an OpenAPI document', async () => {
    expect(await (await call('GET', '/healthz', null)).json()).toMatchObject({ status: 'ok' });
    const metrics = await (await call('GET', '/metrics', operator)).text();
    expect(metrics).toMatch(/citetrace_answers_total\{outcome="answer",reason="none"\} \d+/u);
    expect(metrics).toMatch(/citetrace_ask_duration_seconds_bucket/u);
    expect(metrics).toMatch(/citetrace_abstention_ratio 0\.\d+/u);
    expect(metrics).toMatch(/citetrace_unresolved_citation_ratio 0\n/u);
    expect(metrics).not.toMatch(/bitcoin/u);
    const spec = (await (await call('GET', '/openapi.json', null)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/v1/ask', '/v1/traces', '/v1/traces/{id}', '/v1/sources', '/healthz']));
  });

  it('answers bad input with a 4xx problem body, never a stack trace', async () => {
    for (const [body, status] of [[{ question: '' }, 400], [{ question: 'x'.repeat(10_001) }, 400], [{ nope: 1 }, 400], [{ question: 'hours', as_of: '2026-02-30' }, 400]] as const) {
      const res = await call('POST', '/v1/ask', patient, body);
      expect(res.status).toBe(status);
      const text = await res.text();
      expect(text).not.toMatch(/\n\s+at /u);
      expect(JSON.parse(text)).toMatchObject({ status });
    }
    const missing = await call('GET', '/v1/nothing', operator);
    expect(missing.status).toBe(404);
  });

  it('publishes the question length limit it enforces, and says it in words when a question is over it', async () => {
    const spec = (await (await call('GET', '/openapi.json', null)).json()) as { paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: { properties: { question: { maxLength: number } } } }> } } }> };
    const limit = spec.paths['/v1/ask']?.post?.requestBody.content['application/json']?.schema.properties.question.maxLength;
    expect(limit).toBe(10_000);
    expect((await call('POST', '/v1/ask', patient, { question: 'x'.repeat(limit ?? 0) })).status).toBe(200);
    const over = await call('POST', '/v1/ask', patient, { question: 'x'.repeat((limit ?? 0) + 1) });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { detail: string }).detail).toMatch(/the question is 10001 characters; the limit is 10000/u);
  });

  it('answers 32 concurrent clients and stores every trace', async () => {
    const before = (await service.context.runtime().store.counts()).reduce((s, c) => s + c.count, 0);
    const results = await Promise.all(
      Array.from({ length: 32 }, (_v, i) => call('POST', '/v1/ask', i % 2 === 0 ? patient : staff, { question: i % 3 === 0 ? 'How much is the no-show fee?' : 'What are the Eastside Clinic hours?' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 32 }, () => 200));
    const ids = await Promise.all(results.map(async (r) => ((await r.json()) as { trace_id: string }).trace_id));
    for (const id of ids) expect(await service.context.runtime().store.get(id)).not.toBeNull();
    const after = (await service.context.runtime().store.counts()).reduce((s, c) => s + c.count, 0);
    expect(after - before).toBe(32);
  });
});

describe('rate limit', () => {
  it('answers 429 with a problem body once a key exceeds its limit', async () => {
    const t = await startTestService({ rateLimitPerMinute: 3, listen: false });
    const { service } = t;
    const key = t.keyFor('patient');
    try {
      const statuses = [];
      for (let i = 0; i < 5; i += 1) {
        const res = await service.app.inject({ method: 'POST', url: '/v1/ask', headers: { authorization: `Bearer ${key}` }, payload: { question: 'hours at Harbor?' } });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          expect(res.headers['content-type']).toMatch(/application\/problem\+json/u);
          expect(res.json()).toMatchObject({ status: 429, title: 'Too many requests' });
        }
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await t.close();
    }
  });
});
