export { loadPinnedClassifier, ModelManifestSchema, readPinnedFile, type PinnedClassifier, type PinnedModelFolder, type SessionPlacement } from './pinned.js';
