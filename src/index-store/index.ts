export { commitIngest, type CommitRequest, type EmbeddedPassage } from './commit.js';
export { openPolicyIndex, type PassageMatch, type PolicyIndex, type SearchRequest } from './lance-index.js';
export { readCommit, readManifest, snapshotIdOf, type Manifest } from './manifest.js';
export { recoverInterruptedWrite } from './write-lock.js';
export { describeSources, type SourceRevisionView, type SourceView } from './sources.js';
export { DEFAULT_VECTOR_INDEX, type VectorIndexPolicy, type VectorMethod } from './vector-index.js';
