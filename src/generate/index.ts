export { createExtractiveGenerator, DEFAULT_EXTRACTIVE, type ExtractiveOptions } from './extractive.js';
export { GENERATOR_KINDS, type Draft, type GenerateRequest, type GenerationMode, type GenerationUsage, type Generator, type ModelIdentity } from './generator.js';
export { importNodeLlamaCpp, loadLlamaGenerator, type LlamaGeneratorOptions, type LocalGenerator } from './llama.js';
export { createOpenAIGenerator, type OpenAIGeneratorOptions } from './openai.js';
export { NO_ANSWER, PROMPT_VERSION, renderPrompt } from './prompt.js';
export { checkGguf, provisionSmolLM2, SMOLLM2, type GgufFile } from './provision-gguf.js';
export { draftFromReply, replySchema } from './structured.js';
