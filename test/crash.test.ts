import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crashRun } from '../scripts/crash-run.js';
import { createSqliteTraceStore } from '../src/trace/index.js';
import { tempDir } from './helpers.js';

describe('kill -9 while appending (short version; bench/crash.ts runs the long one)', () => {
  it('keeps every acknowledged trace and one unbroken chain on SQLite', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    await createSqliteTraceStore({ file }).close();
    const result = await crashRun({ target: file, writers: 8, cycles: 25, open: () => Promise.resolve(createSqliteTraceStore({ file })) });
    // Only writers that had acknowledged an append are killed, so every kill adds at least one.
    expect(result.acknowledged).toBeGreaterThanOrEqual(result.cycles);
    expect(result.missing).toEqual([]);
    expect(result.chainProblems).toEqual([]);
    expect(result.stored).toBeGreaterThanOrEqual(result.acknowledged);
  }, 120_000);
});
