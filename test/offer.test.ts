import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offeredPassages } from '../src/pipeline/offer.js';

const passages = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `S${i + 1}` }));

describe('the passages offered to the generator', () => {
  it('are at most k answering passages, best-retrieved first; below k only at the higher bar', () => {
    const labeled = passages(8);
    const answering = new Set(['S2', 'S3', 'S7']);
    const best = new Map([['S2', 0.9], ['S3', 0.5], ['S7', 0.95]]);
    expect(offeredPassages({ labeled, answering, best, k: 5, beyondKThreshold: 1, setAside: new Set(), mustOffer: [] }).map((p) => p.label)).toEqual(['S2', 'S3']);
    expect(offeredPassages({ labeled, answering, best, k: 5, beyondKThreshold: 0.9, setAside: new Set(), mustOffer: [] }).map((p) => p.label)).toEqual(['S2', 'S3', 'S7']);
  });

  it('count a passage set aside whole before judging in none of the k places: the next best-retrieved moves up (candidate RF)', () => {
    const labeled = passages(8);
    const answering = new Set(['S2', 'S6']);
    const best = new Map([['S2', 0.9], ['S6', 0.99]]);
    expect(offeredPassages({ labeled, answering, best, k: 5, beyondKThreshold: 1, setAside: new Set(), mustOffer: [] }).map((p) => p.label)).toEqual(['S2']);
    expect(offeredPassages({ labeled, answering, best, k: 5, beyondKThreshold: 1, setAside: new Set(['S1']), mustOffer: [] }).map((p) => p.label)).toEqual(['S2', 'S6']);
    expect(offeredPassages({ labeled, answering, best, k: 2, beyondKThreshold: 1, setAside: new Set(['S1', 'S3', 'S4', 'S5']), mustOffer: [] }).map((p) => p.label)).toEqual(['S2', 'S6']);
  });

  it('offer the passage the answer must quote (a row answering for every site) wherever it ranked, in place of the last when k are offered', () => {
    const labeled = passages(8);
    const answering = new Set(['S1', 'S2', 'S3', 'S7']);
    const best = new Map([['S7', 0.99]]);
    expect(offeredPassages({ labeled, answering, best, k: 5, beyondKThreshold: 1, setAside: new Set(), mustOffer: ['S7'] }).map((p) => p.label)).toEqual(['S1', 'S2', 'S3', 'S7']);
    expect(offeredPassages({ labeled, answering, best, k: 3, beyondKThreshold: 1, setAside: new Set(), mustOffer: ['S7'] }).map((p) => p.label)).toEqual(['S1', 'S2', 'S7']);
    expect(offeredPassages({ labeled, answering, best, k: 3, beyondKThreshold: 1, setAside: new Set(), mustOffer: ['S2'] }).map((p) => p.label)).toEqual(['S1', 'S2', 'S3']);
  });

  it('offer every passage the answer must quote (one per site), even beyond k, in retrieval order', () => {
    const labeled = passages(9);
    const answering = new Set(['S1', 'S2', 'S4', 'S6', 'S8']);
    expect(offeredPassages({ labeled, answering, best: new Map(), k: 3, beyondKThreshold: 1, setAside: new Set(), mustOffer: ['S8', 'S4'] }).map((p) => p.label)).toEqual(['S1', 'S4', 'S8']);
    expect(offeredPassages({ labeled, answering, best: new Map(), k: 2, beyondKThreshold: 1, setAside: new Set(), mustOffer: ['S8', 'S6', 'S4'] }).map((p) => p.label)).toEqual(['S4', 'S6', 'S8']);
  });

  it('never exceed k or the passages that must be quoted, offer only answering passages and those, each once, in retrieval order (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 6 }), fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 6 }), (n, k, answers, must) => {
        const labeled = passages(n);
        const answering = new Set(labeled.filter((_, i) => answers[i] === true).map((p) => p.label));
        const mustOffer = must.filter((i) => i < n).map((i) => `S${i + 1}`);
        const offered = offeredPassages({ labeled, answering, best: new Map(), k, beyondKThreshold: 1, setAside: new Set(), mustOffer }).map((p) => p.label);
        expect(offered.length).toBeLessThanOrEqual(Math.max(k, mustOffer.length));
        expect(new Set(offered).size).toBe(offered.length);
        for (const label of offered) expect(answering.has(label) || mustOffer.includes(label)).toBe(true);
        for (const label of mustOffer) expect(offered).toContain(label);
        expect(offered).toEqual(labeled.map((p) => p.label).filter((l) => offered.includes(l)));
      }),
      { seed: 23 },
    );
  });
});
