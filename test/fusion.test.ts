import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion, RRF_K } from '../src/retrieve/index.js';

const ranking = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { minLength: 1, maxLength: 8 });

describe('reciprocal rank fusion', () => {
  it('ranks first a passage that both retrievers rank first (property)', () => {
    fc.assert(
      fc.property(ranking, ranking, (v, t) => {
        const top = 'z';
        const fused = reciprocalRankFusion([
          { name: 'vector', items: [top, ...v].map((key, i) => ({ key, score: 1 - i / 10 })) },
          { name: 'fts', items: [top, ...t].map((key, i) => ({ key, score: 10 - i })) },
        ]);
        expect(fused[0]?.key).toBe(top);
        expect(fused[0]?.components).toEqual({ vector: { score: 1, rank: 1 }, fts: { score: 10, rank: 1 } });
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('sums 1/(k + rank) and records a missing retriever as null', () => {
    const fused = reciprocalRankFusion([
      { name: 'vector', items: [{ key: 'a', score: 0.9 }, { key: 'b', score: 0.8 }] },
      { name: 'fts', items: [{ key: 'b', score: 7 }] },
    ]);
    expect(fused.map((f) => f.key)).toEqual(['b', 'a']);
    expect(fused[0]?.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(fused[1]?.components.fts).toBeNull();
  });

  it('is deterministic under ties', () => {
    const fused = reciprocalRankFusion([{ name: 'vector', items: [{ key: 'x', score: 1 }] }, { name: 'fts', items: [{ key: 'y', score: 1 }] }]);
    expect(fused.map((f) => f.key)).toEqual(['x', 'y']);
  });
});
