import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../src/embed/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { commitIngest, openPolicyIndex, readManifest, type PolicyIndex } from '../src/index-store/index.js';
import { allowedTop } from '../src/index-store/filters.js';
import { LANCE_DIR, writeManifest } from '../src/index-store/manifest.js';
import { openRuntime } from '../src/main.js';
import type { RevisionId, Role } from '../src/domain/index.js';
import { CLOCK, copyCorpus, DEMO_CORPUS, realEmbedder, tempDir, testConfig, TODAY } from './helpers.js';

/**
 * The HNSW path (built automatically on large tables) must keep the access guarantee of the flat
 * path: only passages of the revisions passed as allowed are ever returned, for any subset.
 * The demo corpus is small, so the index is forced here with a zero threshold.
 */
const QUESTIONS = [
  'What is the scheduling desk override code for double-booking?',
  'Until what time can I get blood drawn at the Harbor lab?',
  'How much is the no-show fee?',
  'Is Eastside Clinic open on Saturday?',
  'Which app do I use for a video visit?',
  'Is parking free at Harbor Clinic?',
];

async function forceVectorIndex(dataDir: string): Promise<void> {
  const manifest = await readManifest(dataDir);
  if (manifest === null) throw new Error('no manifest');
  await commitIngest({
    dataDir,
    repository: manifest.repository,
    assistant: manifest.assistant,
    model: manifest.model,
    revisions: [],
    passages: [],
    present: manifest.present,
    now: CLOCK(),
    vectorIndex: { minRows: 1, maxUnindexedShare: 0 },
  });
}

describe('vector search through the HNSW index', () => {
  let embedder: Embedder;
  let flat: PolicyIndex;
  let ann: PolicyIndex;
  let annDir: string;
  let corpus: string;
  const vectors = new Map<string, Float32Array>();

  beforeAll(async () => {
    embedder = await realEmbedder();
    const flatDir = await tempDir('citetrace-flat-');
    annDir = await tempDir('citetrace-ann-');
    corpus = await copyCorpus();
    await ingestRepository({ root: DEMO_CORPUS, dataDir: flatDir, embedder, now: CLOCK() });
    await ingestRepository({ root: corpus, dataDir: annDir, embedder, now: CLOCK() });
    await forceVectorIndex(annDir);
    flat = await openPolicyIndex({ dataDir: flatDir });
    ann = await openPolicyIndex({ dataDir: annDir });
    const embedded = await embedder.embed({ texts: QUESTIONS });
    QUESTIONS.forEach((q, i) => vectors.set(q, embedded[i] as Float32Array));
  });
  afterAll(() => {
    flat.close();
    ann.close();
  });

  const inForce = (index: PolicyIndex, role: Role, asOf = TODAY): RevisionId[] => [...index.inForce({ role, asOf }).values()].map((r) => r.revision);

  it('uses the index, and says so in the retriever id recorded in traces', async () => {
    expect(flat.vectorMethod).toBe('flat');
    expect(ann.vectorMethod).toBe('hnsw-sq');
    // The in-force prefilter is resolved from a BTREE index on the revision ordinal.
    const db = await lancedb.connect(path.join(annDir, LANCE_DIR));
    const passages = await db.openTable('passages');
    const indexed = (await passages.listIndices()).map((i) => `${i.indexType}:${i.columns.join(',')}`);
    db.close();
    expect(indexed).toEqual(expect.arrayContaining([expect.stringMatching(/^BTree:rev_ordinal$/iu), expect.stringMatching(/:vector$/u)]));
    const runtime = await openRuntime({ config: testConfig(annDir), embedder, clock: CLOCK });
    try {
      const trace = await runtime.assistant.ask({ question: 'How much is the no-show fee?', role: 'patient' });
      expect(trace.config.retriever).toContain('lancedb-cosine+hnsw-sq');
      const allowed = new Set(inForce(runtime.index, 'patient'));
      expect(trace.retrieved.length).toBeGreaterThan(0);
      for (const r of trace.retrieved) expect(allowed.has(r.revision)).toBe(true);
    } finally {
      await runtime.close();
    }
  });

  // HNSW is approximate and its graph is built with random levels (and by several threads): runs of the suite in
  // session 29 missed 1 and 3 of the 144 exact hits, never more than one in a search. What it must never do: return a
  // passage exact search would not rank, a score other than the exact cosine, miss more than one of a search's 8,
  // or fall below a recall of 0.95 over all 18 searches (at most 7 of 144 missed).
  it('returns what exact search returns, with exact cosine scores, for each role and date (recall of 8 at least 0.95, at most one missed per search)', async () => {
    let missed = 0;
    for (const [role, asOf] of [['patient', TODAY], ['staff', TODAY], ['patient', '2027-02-01']] as const) {
      for (const question of QUESTIONS) {
        const vector = vectors.get(question) as Float32Array;
        const exact = await flat.vectorSearch({ vector, revisions: inForce(flat, role, asOf), limit: 8 });
        const approx = await ann.vectorSearch({ vector, revisions: inForce(ann, role, asOf), limit: 8 });
        const exactScore = new Map((await flat.vectorSearch({ vector, revisions: inForce(flat, role, asOf), limit: 1000 })).map((m) => [m.passage.chunkId, m.score]));
        approx.forEach((m) => { expect(m.score).toBeCloseTo(exactScore.get(m.passage.chunkId) ?? Number.NaN, 5); });
        const found = new Set(approx.map((m) => m.passage.chunkId));
        const lost = exact.filter((m) => !found.has(m.passage.chunkId)).length;
        expect(lost, question).toBeLessThanOrEqual(1);
        missed += lost;
      }
    }
    expect(missed).toBeLessThanOrEqual(7);
  });

  it('never returns a passage outside the allowed revisions, for any subset of them (narrow filters included)', async () => {
    const all = [...ann.revisions.keys()];
    // The graph search is approximate under a prefilter: the same candidates as exact search on the whole, not always to the last rank.
    let found = 0;
    let wanted = 0;
    await fc.assert(
      fc.asyncProperty(fc.subarray(all, { minLength: 0 }), fc.constantFrom(...QUESTIONS), fc.integer({ min: 1, max: 40 }), async (allowed, question, limit) => {
        const vector = vectors.get(question) as Float32Array;
        const matches = await ann.vectorSearch({ vector, revisions: allowed, limit });
        const set = new Set<string>(allowed);
        for (const m of matches) expect(set.has(m.passage.revision)).toBe(true);
        const texts = await ann.textSearch({ query: question, revisions: allowed, limit });
        for (const m of texts) expect(set.has(m.passage.revision)).toBe(true);
        // Never short of candidates that exist: a narrow filter falls back to exact search rather than coming up short.
        const exact = await flat.vectorSearch({ vector, revisions: allowed, limit });
        expect(matches).toHaveLength(exact.length);
        const truth = new Set(exact.map((m) => m.passage.chunkId));
        found += matches.filter((m) => truth.has(m.passage.chunkId)).length;
        wanted += truth.size;
      }),
      { seed: 20261202, numRuns: 25 },
    );
    expect(found / wanted).toBeGreaterThanOrEqual(0.95);
  });

  it('finds passages of revisions appended after the index was built, and keeps the index', async () => {
    const file = path.join(corpus, 'lab', 'harbor-lab-hours.md');
    await writeFile(file, (await readFile(file, 'utf8')).replace('version: 2026-05-04', 'version: 2026-05-05').replace('effective_date: 2026-05-04', 'effective_date: 2026-05-05').replace(/\n---\n/u, '\n---\nThe Harbor Clinic lab now offers saliva collection kits for pickup at the front desk on weekdays.\n\n'));
    const report = await ingestRepository({ root: corpus, dataDir: annDir, embedder, now: CLOCK() });
    expect(report.added).toHaveLength(1);
    const fresh = await openPolicyIndex({ dataDir: annDir });
    try {
      expect(fresh.vectorMethod).toBe('hnsw-sq');
      const added = report.added[0]?.revision as RevisionId;
      const [vector] = await embedder.embed({ texts: ['Can I pick up a saliva collection kit at the Harbor lab?'] });
      const matches = await fresh.vectorSearch({ vector: vector as Float32Array, revisions: inForce(fresh, 'patient'), limit: 5 });
      expect(matches[0]?.passage.revision).toBe(added);
      expect(matches.map((m) => m.passage.revision)).not.toContain(ann.inForce({ role: 'patient', asOf: TODAY }).get('harbor-lab-hours' as never)?.revision);
    } finally {
      fresh.close();
    }
  });
});

describe('an index written before revision ordinals', () => {
  it('still filters by revision id, and takes new revisions without ordinals', async () => {
    const embedder = await realEmbedder();
    const dataDir = await tempDir('citetrace-legacy-');
    const corpus = await copyCorpus();
    await ingestRepository({ root: corpus, dataDir, embedder, now: CLOCK() });
    // Make it look like an index from before ordinals: neither table has the columns.
    const manifest = await readManifest(dataDir);
    if (manifest === null) throw new Error('no manifest');
    const db = await lancedb.connect(path.join(dataDir, LANCE_DIR));
    const revisionsTable = await db.openTable('revisions');
    const passagesTable = await db.openTable('passages');
    await revisionsTable.dropColumns(['ordinal']);
    await passagesTable.dropColumns(['rev_ordinal']);
    await writeManifest(dataDir, { ...manifest, seq: manifest.seq + 1, tables: { revisions: await revisionsTable.version(), passages: await passagesTable.version() } });
    db.close();

    const file = path.join(corpus, 'lab', 'harbor-lab-hours.md');
    await writeFile(file, (await readFile(file, 'utf8')).replace('version: 2026-05-04', 'version: 2026-05-06').replace('effective_date: 2026-05-04', 'effective_date: 2026-05-06').replace('7 am to 4 pm', '7 am to 5 pm'));
    const report = await ingestRepository({ root: corpus, dataDir, embedder, now: CLOCK() });
    expect(report.added).toHaveLength(1);

    const runtime = await openRuntime({ config: testConfig(dataDir), embedder, clock: CLOCK });
    try {
      const allowed = new Set<string>([...runtime.index.inForce({ role: 'patient', asOf: TODAY }).values()].map((r) => r.revision));
      expect(allowed.has(report.added[0]?.revision ?? '')).toBe(true);
      for (const question of QUESTIONS) {
        const trace = await runtime.assistant.ask({ question, role: 'patient' });
        for (const r of trace.retrieved) expect(allowed.has(r.revision)).toBe(true);
        expect(trace.retrieved.map((r) => r.source_id)).not.toContain('scheduling-desk-overrides');
      }
      const lab = await runtime.assistant.ask({ question: 'Until what time can I get blood drawn at the Harbor lab?', role: 'patient' });
      expect(lab.citations.map((c) => c.revision)).toContain(report.added[0]?.revision);
    } finally {
      await runtime.close();
    }
  });
});

describe('searching unfiltered and dropping disallowed rows', () => {
  it('returns exactly the best allowed rows, whichever path it takes', async () => {
    const row = fc.record({ revision: fc.constantFrom('r1', 'r2', 'r3', 'r4', 'r5', 'r6') });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 300 }),
        fc.subarray(['r1', 'r2', 'r3', 'r4', 'r5', 'r6'], { minLength: 1 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 120 }),
        // The share is an estimate (revisions, not passages), so any value must stay correct.
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        async (rows, allowedList, limit, maxUnfiltered, share) => {
          const ranked = rows.map((r, i) => ({ ...r, rank: i }));
          const allowed = new Set(allowedList);
          const truth = ranked.filter((r) => allowed.has(r.revision)).slice(0, limit);
          const calls: string[] = [];
          const scope = { allowed, share, filter: () => 'revision IN (...)' };
          const got = await allowedTop(
            scope,
            limit,
            maxUnfiltered,
            (n) => (calls.push('unfiltered'), Promise.resolve(ranked.slice(0, n))),
            () => (calls.push('prefiltered'), Promise.resolve(truth)),
          );
          expect(got).toEqual(truth);
          expect(calls.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});
