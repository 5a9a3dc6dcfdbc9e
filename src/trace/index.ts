export { bodyDigest, canonicalJson, chainHash, GENESIS_HASH, isCanonicalOf } from './canonical.js';
export { grantServiceRole, migratePostgres, PG_MIGRATIONS } from './postgres-schema.js';
export { createPostgresTraceStore } from './postgres-store.js';
export { createRedactor, mayNameAPerson, redact, type IdentifierType, type Redaction } from './redact.js';
export { createSqliteTraceStore, SQLITE_MIGRATIONS } from './sqlite-store.js';
export { bodyReading, columnsOf, idRangeOf, INDEXED_COLUMNS, isTombstone, listedQuery, payloadOf, tombstoneOf, tombstonesDigest, type IndexedColumn, type OutcomeCount, type PurgeRecord, type StoredTrace, type TraceFilter, type TraceStore } from './store.js';
export { checkpointSignatureValid, keyIdOf, parseCheckpointLine, purgesDigest, readCheckpoints, signCheckpoint, withCheckpoints, writeCheckpoint, type Checkpoint, type CheckpointLine, type Checkpointing } from './checkpoint.js';
