export { chunkRevision, DEFAULT_CHUNKING, searchTextOf, type ChunkOptions } from './chunk.js';
export { ingestRepository, type IngestOptions, type IngestReport } from './ingest.js';
export { canonicalContent, parsePolicyFile, revisionIdOf, type FileProblem, type ParseResult } from './parse.js';
export { formatProblem, isPolicyFileName, readAssistantConfig, scanRepository, skipReasonOf, type IngestLimits, type RepositoryScan, type SkippedEntry, type SkipReason } from './repository.js';
export { watchRepository, type Watcher, type WatchOptions } from './watch.js';
