import { randomUUID } from 'node:crypto';
import type { Trace } from '../src/domain/index.js';

/** A contract-valid trace for store tests, crash tests and benchmarks. */
export function sampleTrace(overrides: Partial<Trace> = {}): Trace {
  return {
    trace_id: randomUUID() as Trace['trace_id'],
    created_at: new Date().toISOString(),
    query: 'Until what time is the Harbor lab open?',
    normalized_query: 'until what time is the harbor lab open?',
    role: 'patient',
    as_of: '2026-12-02',
    outcome: 'abstain',
    reason: 'NO_SUPPORT',
    answer: "I can't verify an answer to that.",
    retrieved: [],
    sentences: [],
    citations: [],
    config: { retriever: 'sample', embedder: 'sample', generator: 'sample', prompt_version: 'none', index_snapshot: '1:sample', k: 5, candidates: 8 },
    detail: null,
    rejected: [],
    generation: null,
    ...overrides,
  };
}
