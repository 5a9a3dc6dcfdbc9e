export { commitIngest, type CommitRequest, type EmbeddedPassage } from './commit.js';
export { passageFacts, revisionFacts, type IndexEvidence, type PassageFacts, type RevisionFacts, type StoredPassageRow, type StoredRevisionRow } from './evidence.js';
export { openPolicyIndex, type PassageMatch, type PolicyIndex, type SearchRequest } from './lance-index.js';
export { commitDigest, readCommit, readManifest, snapshotIdOf, type Manifest } from './manifest.js';
export { recoverInterruptedWrite } from './write-lock.js';
export { describeSources, type SourceRevisionView, type SourceView } from './sources.js';
export { DEFAULT_VECTOR_INDEX, type VectorIndexPolicy, type VectorMethod } from './vector-index.js';
export { changedIndexFiles } from './file-digests.js';
