export { loadPinnedClassifier, ModelManifestSchema, readPinnedFile, type PinnedClassifier, type PinnedModelFolder } from './pinned.js';
