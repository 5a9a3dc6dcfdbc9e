import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { chainHash, createSqliteTraceStore, GENESIS_HASH } from '../src/trace/index.js';
import { tempDir } from './helpers.js';

/** The SQLite store commits the appends of one event-loop turn together (one fsync) and acknowledges none before that commit. */
describe('SQLite group commit', () => {
  it('acknowledges concurrent appends in order, each chained to the one before, all on disk', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const store = createSqliteTraceStore({ file });
    const traces = Array.from({ length: 40 }, () => sampleTrace());
    const stored = await Promise.all(traces.map((t) => store.append(t)));
    expect(stored.map((s) => s.trace.trace_id)).toEqual(traces.map((t) => t.trace_id));
    let previous = GENESIS_HASH;
    for (const [i, s] of stored.entries()) {
      expect(s.seq).toBe(i + 1);
      expect(s.prevHash).toBe(previous);
      expect(s.hash).toBe(chainHash(previous, s.bodySha256));
      previous = s.hash;
    }
    // Every acknowledged trace is on disk, readable by another connection.
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM traces').get()).toEqual({ n: 40 });
    db.close();
  });

  it('fails only the trace that cannot be stored when a batch fails', async () => {
    const store = createSqliteTraceStore({ file: path.join(await tempDir(), 'traces.sqlite') });
    const first = sampleTrace();
    await store.append(first);
    const others = Array.from({ length: 5 }, () => sampleTrace());
    const results = await Promise.allSettled([store.append(others[0] ?? first), store.append(first), ...others.slice(1).map((t) => store.append(t))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((await store.head())?.seq).toBe(6);
    await store.close();
  });
});
