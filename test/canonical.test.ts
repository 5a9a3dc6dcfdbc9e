import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { canonicalJson, isCanonicalOf } from '../src/trace/index.js';

/** What canonicalJson wrote before it was written out by hand: every stored digest was made this way, so the bytes must not change. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

describe('canonicalJson', () => {
  it('writes the same bytes as JSON.stringify over key-sorted objects, for any JSON value (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { seed: 17, numRuns: 2000 },
    );
  });

  it('and for what JSON.stringify drops or converts: undefined fields, undefined and functions in arrays, dates, unicode keys', () => {
    const odd = { b: undefined, a: [undefined, () => 1, new Date('2026-12-02T00:00:00.000Z'), Number.NaN, -0], 'é': 1, e: 2, 'Z': { y: null, x: 'ä"\n' }, '10': 1, '9': 2 };
    expect(canonicalJson(odd)).toBe(reference(odd));
    const trace = sampleTrace();
    expect(canonicalJson(trace)).toBe(reference(trace));
  });
});

describe('isCanonicalOf', () => {
  const answer = (body: string, value: unknown): boolean => isCanonicalOf(body, JSON.parse(body) as unknown, value);
  /** A value changed the ways a schema's reading can differ from what it read: a member left out, added, set to undefined, or another value. */
  const mutated = (value: unknown, pick: number): unknown => {
    if (value === null || typeof value !== 'object') return pick % 2 === 0 ? value : [value];
    if (Array.isArray(value)) return pick % 3 === 0 ? value.slice(1) : pick % 3 === 1 ? [...(value as unknown[]), null] : value.map((v: unknown, i) => (i === 0 ? mutated(v, pick + 1) : v));
    const entries = Object.entries(value);
    const [first] = entries;
    if (pick % 4 === 0 || first === undefined) return { ...value, added: 1 };
    if (pick % 4 === 1) return Object.fromEntries(entries.slice(1));
    if (pick % 4 === 2) return { ...value, [first[0]]: undefined, also: undefined };
    return { ...value, [first[0]]: mutated(first[1], pick + 1) };
  };

  it('agrees with writing the canonical form, for any body and any reading of it (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom('canonical', 'stringify', 'spaced'), (value, pick, form) => {
        const body = form === 'canonical' ? canonicalJson(value) : form === 'stringify' ? JSON.stringify(value) : JSON.stringify(value, null, 1);
        for (const reading of [JSON.parse(body) as unknown, value, mutated(JSON.parse(body), pick)]) {
          expect(answer(body, reading)).toBe(canonicalJson(reading) === body);
        }
      }),
      { seed: 17, numRuns: 3000 },
    );
  });

  it('and on a contract trace: the body the stores write, with its keys out of order, a member dropped or added', () => {
    const trace = sampleTrace();
    const body = canonicalJson(trace);
    expect(answer(body, trace)).toBe(true);
    expect(answer(JSON.stringify(trace), trace)).toBe(canonicalJson(trace) === JSON.stringify(trace));
    expect(answer(body, { ...trace, answer: 'changed' })).toBe(false);
    expect(answer(body, { ...trace, extra: true })).toBe(false);
    expect(answer(body, { ...trace, reason: undefined })).toBe(false);
    expect(answer(body.replace('{', '{"zz":1,'), trace)).toBe(false);
  });
});
