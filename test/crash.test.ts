import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crashRun } from '../scripts/crash-run.js';
import { createSqliteTraceStore } from '../src/trace/index.js';
import { tempDir } from './helpers.js';

describe('kill -9 while appending (short version; bench/crash.ts runs the long one)', () => {
  it('keeps every acknowledged trace, one unbroken chain and every signed checkpoint valid on SQLite', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'traces.sqlite');
    await createSqliteTraceStore({ file }).close();
    const result = await crashRun({ target: file, writers: 8, cycles: 25, open: () => Promise.resolve(createSqliteTraceStore({ file })), signing: { dir, every: 10 } });
    // Only writers that had acknowledged an append are killed, so every kill adds at least one.
    expect(result.acknowledged).toBeGreaterThanOrEqual(result.cycles);
    expect(result.missing).toEqual([]);
    expect(result.chainProblems).toEqual([]);
    expect(result.checkpoints).toBeGreaterThan(0);
    expect(result.checkpointProblems).toEqual([]);
    expect(result.stored).toBeGreaterThanOrEqual(result.acknowledged);
  }, 120_000);
});
