import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Trace } from '../src/domain/index.js';
import { canonicalJson, chainHash, createSqliteTraceStore, GENESIS_HASH } from '../src/trace/index.js';
import { tempDir } from './helpers.js';

function sampleTrace(overrides: Partial<Trace> = {}): Trace {
  return {
    trace_id: randomUUID() as Trace['trace_id'],
    created_at: '2026-12-02T10:00:00.000Z',
    query: 'Until what time is the Harbor lab open?',
    normalized_query: 'until what time is the harbor lab open?',
    role: 'patient',
    as_of: '2026-12-02',
    outcome: 'abstain',
    reason: 'NO_SUPPORT',
    answer: 'I cannot verify that.',
    retrieved: [],
    sentences: [],
    citations: [],
    config: { retriever: 'r', embedder: 'e', generator: 'g', prompt_version: 'none', index_snapshot: '1:abc', k: 5, candidates: 8 },
    detail: null,
    rejected: null,
    ...overrides,
  };
}

describe('SQLite trace store', () => {
  it('appends, reads back the same trace, and links each trace to the previous hash', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const store = createSqliteTraceStore({ file });
    const a = await store.append(sampleTrace());
    const b = await store.append(sampleTrace({ outcome: 'clarify', reason: 'UNDERSPECIFIED' }));
    expect(a.prevHash).toBe(GENESIS_HASH);
    expect(b.prevHash).toBe(a.hash);
    expect(b.hash).toBe(chainHash(a.hash, canonicalJson(b.trace)));
    expect((await store.get(a.trace.trace_id))?.trace).toEqual(a.trace);
    expect((await store.list({ limit: 10, outcome: 'clarify' })).map((s) => s.trace.trace_id)).toEqual([b.trace.trace_id]);
    expect(await store.get(randomUUID())).toBeNull();
    await store.close();
  });

  it('is refused UPDATE and DELETE by the database itself', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const store = createSqliteTraceStore({ file });
    const stored = await store.append(sampleTrace());
    await store.close();
    const db = new Database(file);
    expect(() => db.prepare("UPDATE traces SET outcome = 'answer' WHERE seq = ?").run(stored.seq)).toThrow(/append-only: UPDATE refused/u);
    expect(() => db.prepare('DELETE FROM traces WHERE seq = ?').run(stored.seq)).toThrow(/append-only: DELETE refused/u);
    expect(db.prepare('SELECT outcome FROM traces WHERE seq = ?').get(stored.seq)).toEqual({ outcome: 'abstain' });
    db.close();
  });

  it('keeps one linear chain across two connections writing in turn', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const one = createSqliteTraceStore({ file });
    const two = createSqliteTraceStore({ file });
    const stored = [];
    for (let i = 0; i < 10; i += 1) stored.push(await (i % 2 === 0 ? one : two).append(sampleTrace()));
    for (let i = 1; i < stored.length; i += 1) expect(stored[i]?.prevHash).toBe(stored[i - 1]?.hash);
    await one.close();
    await two.close();
  });

  it('refuses a trace that breaks the contract schema', async () => {
    const store = createSqliteTraceStore({ file: path.join(await tempDir(), 'traces.sqlite') });
    await expect(store.append({ ...sampleTrace(), as_of: '2026-13-01' })).rejects.toThrow(/trace append failed/u);
    await store.close();
  });
});
