export { loadPinnedClassifier, ModelManifestSchema, type PinnedClassifier, type PinnedModelFolder } from './pinned.js';
