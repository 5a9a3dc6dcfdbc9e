/**
 * A trace writer for crash tests: appends sample traces to the store named by its argument
 * (a SQLite file or a postgres:// URL) as fast as it can, printing each trace id only after its
 * append has resolved, i.e. after the commit. A parent kills it with SIGKILL at random.
 */
import { randomUUID } from 'node:crypto';
import type { Trace } from '../src/domain/index.js';
import { createPostgresTraceStore, createSqliteTraceStore } from '../src/trace/index.js';

const target = process.argv[2] ?? '';
const schema = process.argv[3];
const store = target.startsWith('postgres')
  ? await createPostgresTraceStore({ url: target, ...(schema ? { schema } : {}) })
  : createSqliteTraceStore({ file: target });

for (;;) {
  const trace: Trace = {
    trace_id: randomUUID() as Trace['trace_id'],
    created_at: new Date().toISOString(),
    query: 'crash test',
    normalized_query: 'crash test',
    role: 'patient',
    as_of: '2026-12-02',
    outcome: 'abstain',
    reason: 'NO_SUPPORT',
    answer: 'crash test',
    retrieved: [],
    sentences: [],
    citations: [],
    config: { retriever: 'crash', embedder: 'crash', generator: 'crash', prompt_version: 'none', index_snapshot: '1:crash', k: 5, candidates: 8 },
    detail: null,
    rejected: null,
  };
  await store.append(trace);
  process.stdout.write(`${trace.trace_id}\n`);
}
