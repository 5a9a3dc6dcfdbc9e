export { cosine, type Embedder } from './embedder.js';
export { MINILM, provisionModel, weightsHashOf, type ProvisionOptions, type ProvisionedModel } from './provision.js';
export { createTransformersEmbedder } from './transformers-embedder.js';
