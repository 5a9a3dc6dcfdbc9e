export { bodyDigest, canonicalJson, chainHash, GENESIS_HASH } from './canonical.js';
export { createPostgresTraceStore, migratePostgres, PG_MIGRATIONS } from './postgres-store.js';
export { createSqliteTraceStore } from './sqlite-store.js';
export type { OutcomeCount, StoredTrace, TraceFilter, TraceStore } from './store.js';
