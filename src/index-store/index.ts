export { commitIngest, openPolicyIndex, type CommitRequest, type EmbeddedPassage, type PassageMatch, type PolicyIndex, type SearchRequest } from './lance-index.js';
export { readCommit, readManifest, snapshotIdOf, type Manifest } from './manifest.js';
export { describeSources, type SourceRevisionView, type SourceView } from './sources.js';
