export { canonicalJson, chainHash, GENESIS_HASH } from './canonical.js';
export { createSqliteTraceStore } from './sqlite-store.js';
export type { OutcomeCount, StoredTrace, TraceFilter, TraceStore } from './store.js';
