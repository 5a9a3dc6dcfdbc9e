export { createExtractiveGenerator, DEFAULT_EXTRACTIVE, type ExtractiveOptions } from './extractive.js';
export type { Draft, GenerateRequest, Generator } from './generator.js';
