export { loadPinnedClassifier, ModelManifestSchema, placed, readPinnedFile, type PinnedClassifier, type PinnedModelFolder, type SessionPlacement } from './pinned.js';
