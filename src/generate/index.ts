export { createExtractiveGenerator, DEFAULT_EXTRACTIVE, type ExtractiveOptions } from './extractive.js';
export type { Draft, GenerateRequest, GenerationMode, GenerationUsage, Generator, ModelIdentity } from './generator.js';
export { importNodeLlamaCpp, loadLlamaGenerator, type LlamaGeneratorOptions, type LocalGenerator } from './llama.js';
export { createOpenAIGenerator, type OpenAIGeneratorOptions } from './openai.js';
export { NO_ANSWER, PROMPT_VERSION, renderPrompt } from './prompt.js';
export { checkGguf, provisionSmolLM2, SMOLLM2, type GgufFile } from './provision-gguf.js';
export { draftFromReply, replySchema } from './structured.js';
