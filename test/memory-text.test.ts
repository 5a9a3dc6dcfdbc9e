import path from 'node:path';
import type * as lancedb from '@lancedb/lancedb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Passage } from '../src/domain/index.js';
import { readCases } from '../src/eval/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { analyze, createMemoryTextSearch, openPolicyIndex, type PolicyIndex } from '../src/index-store/index.js';
import { lanceBm25, lanceBm25Table } from '../bench/lance-bm25.js';
import { CLOCK, DEMO_CORPUS, hashEmbedder, tempDir } from './helpers.js';

/**
 * citetrace's BM25 (src/index-store/memory-text.ts) replaced LanceDB's full-text search. It is pinned
 * against LanceDB's own BM25 index, built here with the options ingest used to build it: the same
 * passages match every query, with the same scores within float32 rounding, in the same order
 * except among scores that equal within that rounding (LanceDB orders those as its top-k heap
 * leaves them).
 */
const RELATIVE = 1e-6;

const passageOf = (id: string, revision: string): Passage =>
  ({ chunkId: id, revision, sourceId: id, start: 0, end: 1, text: '', headings: [] }) as unknown as Passage;

describe('analyze', () => {
  it('lower-cases, stems, drops stop words, accents and overlong runs', () => {
    expect(analyze('The Clinics are OPENING on Saturdays; café hours: 8–5. Is it?')).toEqual(['clinic', 'open', 'saturday', 'cafe', 'hour', '8', '5']);
    expect(analyze(`ok ${'x'.repeat(39)} ${'y'.repeat(40)}`)).toEqual(['ok', 'x'.repeat(39)]);
    expect(analyze('')).toEqual([]);
  });

  it('property: terms are non-empty, lower case, never a stop word, and do not depend on letter case', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('The', 'clinic', 'IS', 'open', 'Saturdays', 'x-ray', 'walk-in', 'a', 'Ünïcode', '42', '—', '!!', 'hours'), { maxLength: 12 }), (words) => {
        const text = words.join(' ');
        const terms = analyze(text);
        for (const t of terms) {
          expect(t).not.toBe('');
          expect(t).toBe(t.toLowerCase());
          expect(['the', 'is', 'a', 'in', 'to', 'and']).not.toContain(t);
        }
        expect(analyze(text.toUpperCase())).toEqual(terms);
      }),
    );
  });
});

describe('BM25 over rows', () => {
  const rows = [
    { passage: passageOf('a', 'r1'), searchText: 'Parking\nParking is free in the garage.' },
    { passage: passageOf('b', 'r1'), searchText: 'Hours\nThe clinic opens at 8 am.' },
    { passage: passageOf('c', 'r2'), searchText: 'Parking\nStreet parking only; the garage closed.' },
  ];
  const search = createMemoryTextSearch(rows);

  it('scores by the stated formula, best first, only allowed revisions, never a passage without a query term', () => {
    const [a, , c] = rows.map((r) => analyze(r.searchText).length) as [number, number, number];
    const mean = rows.reduce((sum, r) => sum + analyze(r.searchText).length, 0) / rows.length;
    // N = 3; "garage" is in 2 passages, "free" in 1.
    const idf = (n: number): number => Math.log(1 + (3 - n + 0.5) / (n + 0.5));
    const tf = (f: number, len: number): number => (f * 2.2) / (f + 1.2 * (0.25 + (0.75 * len) / mean));
    const hits = search.search({ query: 'free garage garage', allowed: new Set(['r1', 'r2']), limit: 10 });
    expect(hits.map((h) => h.passage.chunkId)).toEqual(['a', 'c']);
    expect(hits[0]?.score).toBeCloseTo(idf(1) * tf(1, a) + idf(2) * tf(1, a), 12);
    expect(hits[1]?.score).toBeCloseTo(idf(2) * tf(1, c), 12);
    expect(search.search({ query: 'free garage', allowed: new Set(['r2']), limit: 10 }).map((h) => h.passage.chunkId)).toEqual(['c']);
    expect(search.search({ query: 'the is a', allowed: new Set(['r1', 'r2']), limit: 10 })).toEqual([]);
    expect(search.search({ query: 'garage', allowed: new Set(['r1', 'r2']), limit: 0 })).toEqual([]);
  });

  it('property: results are allowed, in score order then table order, at most limit', () => {
    const words = ['parking', 'garage', 'free', 'clinic', 'opens', 'street', 'hours', 'the', 'zebra'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 6 }), fc.subarray(['r1', 'r2']), fc.integer({ min: 0, max: 4 }), (q, allowed, limit) => {
        const hits = search.search({ query: q.join(' '), allowed: new Set(allowed), limit });
        expect(hits.length).toBeLessThanOrEqual(limit);
        const order = hits.map((h) => rows.findIndex((r) => r.passage === h.passage));
        hits.forEach((h, i) => {
          expect(allowed).toContain(h.passage.revision);
          const next = hits[i + 1];
          if (next !== undefined) expect(h.score > next.score || (h.score === next.score && (order[i] ?? 0) < (order[i + 1] ?? 0))).toBe(true);
        });
      }),
    );
  });
});

describe('passages holding every word of a phrase', () => {
  it('property: exactly the allowed passages whose terms include all of some phrase\'s, in table order', () => {
    const words = ['December', 'Dec', '24', '24th', 'christmas', 'eve', 'hours', 'the', 'clinic'];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
        fc.subarray(['r1', 'r2']),
        (docs, phrases, allowed) => {
          const rows = docs.map((d, i) => ({ passage: passageOf(`p${i}`, i % 3 === 0 ? 'r2' : 'r1'), searchText: d.join(' ') }));
          const found = createMemoryTextSearch(rows).containing({ phrases: phrases.map((p) => p.join(' ')), allowed: new Set(allowed) });
          const expected = rows.filter(({ passage, searchText }) => {
            const terms = new Set(analyze(searchText));
            // A phrase of stop words only holds no term, and finds nothing.
            return allowed.includes(passage.revision) && phrases.some((p) => analyze(p.join(' ')).length > 0 && analyze(p.join(' ')).every((t) => terms.has(t)));
          });
          expect(found).toEqual(expected.map((r) => r.passage));
        },
      ),
    );
  });
});

describe('BM25 top k', () => {
  it('property: the best k are the first k of every match in order, ties included', () => {
    const words = ['parking', 'garage', 'free', 'clinic', 'hours', 'lab'];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 12 }),
        (docs, q, limit) => {
          const search = createMemoryTextSearch(docs.map((d, i) => ({ passage: passageOf(`p${i}`, i % 3 === 0 ? 'r2' : 'r1'), searchText: d.join(' ') })));
          const allowed = new Set(['r1', 'r2']);
          const all = search.search({ query: q.join(' '), allowed, limit: 1000 });
          expect(search.search({ query: q.join(' '), allowed, limit })).toEqual(all.slice(0, limit));
          // Best first; equal scores in table order.
          const at = (m: (typeof all)[number]): number => Number(m.passage.chunkId.slice(1));
          all.forEach((m, i) => {
            const next = all[i + 1];
            if (next !== undefined) expect(m.score > next.score || (m.score === next.score && at(m) < at(next))).toBe(true);
          });
        },
      ),
    );
  });
});

describe('citetrace BM25 against LanceDB BM25 on the demo corpus', () => {
  let index: PolicyIndex;
  let table: lancedb.Table;
  let questions: string[];
  beforeAll(async () => {
    const dataDir = await tempDir('citetrace-bm25-');
    await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder: hashEmbedder(), now: CLOCK() });
    index = await openPolicyIndex({ dataDir });
    // LanceDB's own BM25 index, with the options ingest used until citetrace's replaced it.
    table = await lanceBm25Table(dataDir);
    const cases = await Promise.all(['cases.yaml', 'heldout.yaml', 'heldout-b.yaml'].map((f) => readCases(path.join(DEMO_CORPUS, f))));
    questions = cases.flat().map((c) => c.question);
  }, 120_000);
  afterAll(() => {
    index.close();
    table.close();
  });

  it('the same passages, scores within float32 rounding, the same order but for near-ties', async () => {
    const allowed = [...index.revisions.keys()];
    let compared = 0;
    let scored = 0;
    for (const question of questions) {
      const expected = await lanceBm25(table, question, 1000);
      const actual = await index.textSearch({ query: question, revisions: allowed, limit: 1000 });
      expect(actual.map((m) => m.passage.chunkId).sort(), question).toEqual(expected.map((e) => e.chunk_id).sort());
      const score = new Map(actual.map((m) => [m.passage.chunkId as string, m.score]));
      for (const e of expected) {
        expect(Math.abs((score.get(e.chunk_id) ?? 0) - e._score) / e._score, `${question}: ${e.chunk_id}`).toBeLessThan(RELATIVE);
        scored += 1;
      }
      // Each passage sits where LanceDB has it, or among passages whose scores equal its own within rounding.
      actual.forEach((m, i) => {
        const there = expected[i];
        if (there !== undefined && there.chunk_id !== m.passage.chunkId) expect(Math.abs(there._score - m.score) / m.score, question).toBeLessThan(RELATIVE);
      });
      compared += 1;
    }
    expect(compared).toBe(questions.length);
    expect(scored).toBeGreaterThan(1000);
  }, 120_000);
});
