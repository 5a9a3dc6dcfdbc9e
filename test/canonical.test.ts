import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { canonicalJson } from '../src/trace/index.js';

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
