export { createExtractiveGenerator, DEFAULT_EXTRACTIVE, type ExtractiveOptions } from './extractive.js';
export type { Draft, GenerateRequest, GenerationUsage, Generator, ModelIdentity } from './generator.js';
export { createOpenAIGenerator, type OpenAIGeneratorOptions } from './openai.js';
export { NO_ANSWER, PROMPT_VERSION, renderPrompt } from './prompt.js';
