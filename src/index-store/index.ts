export { commitIngest, indexExists, openPolicyIndex, type CommitRequest, type EmbeddedPassage, type PassageMatch, type PolicyIndex, type SearchRequest } from './lance-index.js';
export { readManifest, snapshotIdOf, type Manifest } from './manifest.js';
