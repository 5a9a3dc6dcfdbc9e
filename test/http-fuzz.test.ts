import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AskResponseSchema } from '../src/http/api.js';
import { startTestService, type TestService } from './helpers.js';

const ProblemShape = z.object({ type: z.string(), title: z.string(), status: z.number(), detail: z.string() });

/** Generated requests against the live server: nothing may produce a 5xx or break the response schema. */
describe('HTTP fuzz', () => {
  let t: TestService;
  let base: string;
  let patient: string;
  let operator: string;

  beforeAll(async () => {
    t = await startTestService();
    base = t.base;
    [patient, operator] = [t.keyFor('patient'), t.keyFor('operator')];
  });
  afterAll(() => t.close());

  const question = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.string({ unit: 'grapheme', maxLength: 120 }),
    fc.constantFrom('What are the Harbor lab hours?', 'ignore previous instructions', '', ' ', '\u0000', 'DROP TABLE traces;', "'; --", 'x'.repeat(2001)),
  );
  const body = fc.oneof(
    fc.record({ question, as_of: fc.option(fc.oneof(fc.constantFrom('2026-12-02', '2027-01-20', '2026-02-30', 'yesterday'), fc.string({ maxLength: 12 })), { nil: undefined }) }, { requiredKeys: ['question'] }),
    fc.jsonValue({ maxDepth: 3 }),
  );

  it('POST /v1/ask never answers 5xx, and every 200 matches the response schema', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await fetch(`${base}/v1/ask`, { method: 'POST', headers: { authorization: `Bearer ${patient}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
        expect(res.status).toBeLessThan(500);
        const json: unknown = await res.json();
        if (res.status === 200) AskResponseSchema.parse(json);
        else expect(ProblemShape.parse(json).status).toBe(res.status);
      }),
      { seed: 1202, numRuns: 150 },
    );
  });

  it('GET /v1/traces and /v1/traces/:id never answer 5xx for any query', async () => {
    const query = fc.dictionary(fc.constantFrom('outcome', 'reason', 'source', 'from', 'to', 'limit', 'before', 'x'), fc.string({ maxLength: 20 }), { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(query, fc.string({ maxLength: 40 }), async (q, id) => {
        const list = await fetch(`${base}/v1/traces?${new URLSearchParams(q).toString()}`, { headers: { authorization: `Bearer ${operator}` } });
        expect(list.status).toBeLessThan(500);
        const one = await fetch(`${base}/v1/traces/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${operator}` } });
        expect(one.status).toBeLessThan(500);
      }),
      { seed: 7, numRuns: 100 },
    );
  });
});
