import type OpenAI from 'openai';
import { NO_ANSWER, PROMPT_VERSION, renderPrompt, repairMessage } from './prompt.js';
import type { Draft, GenerateRequest, Generator } from './generator.js';

export interface OpenAIGeneratorOptions {
  /** Any OpenAI-compatible server: vLLM, Ollama, llama.cpp, OpenAI, Azure OpenAI. */
  readonly baseURL: string;
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly maxTokens: number;
}

/**
 * An LLM generator over the OpenAI chat API, held to the same citation contract as the
 * extractive one: the model sees only the labeled passages, delimited as data, and its answer is
 * validated by the pipeline like any other. Temperature 0; no retries inside the client (the
 * pipeline's one bounded repair is the only second attempt).
 */
export function createOpenAIGenerator(options: OpenAIGeneratorOptions): Generator {
  // The SDK loads on the first request, not at start-up: a CLI run that never calls the model pays nothing for it.
  let client: Promise<OpenAI> | undefined;
  const clientOf = (): Promise<OpenAI> =>
    (client ??= import('openai').then(({ default: OpenAIClient }) => new OpenAIClient({ baseURL: options.baseURL, apiKey: options.apiKey, timeout: options.timeoutMs, maxRetries: 0 })));
  const complete = async (request: GenerateRequest, messages: OpenAI.Chat.ChatCompletionMessageParam[]): Promise<Draft> => {
    const started = performance.now();
    const response = await (await clientOf()).chat.completions.create(
      // max_tokens, not max_completion_tokens: vLLM, Ollama and llama.cpp's server understand it.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      { model: options.model, messages, temperature: 0, max_tokens: options.maxTokens },
      request.signal ? { signal: request.signal } : {},
    );
    const text = response.choices[0]?.message.content?.trim();
    if (typeof text !== 'string') throw new Error('the model returned no message content');
    const usage = {
      model: response.model,
      prompt_tokens: response.usage?.prompt_tokens ?? null,
      completion_tokens: response.usage?.completion_tokens ?? null,
      latency_ms: Math.round(performance.now() - started),
    };
    // Small models often close the fixed form with a full stop; anything more is an answer to validate.
    if (text.replace(/[\s.!]+$/u, '') === NO_ANSWER) return { kind: 'abstain', reason: 'NO_SUPPORT', detail: `the model replied ${NO_ANSWER}`, usage };
    return { kind: 'answer', text, usage };
  };
  const base = (request: GenerateRequest): OpenAI.Chat.ChatCompletionMessageParam[] => {
    const prompt = renderPrompt(request.question, request.passages);
    return [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ];
  };
  return {
    id: `openai-chat(${options.model}@${options.baseURL})`,
    promptVersion: PROMPT_VERSION,
    model: { system: 'openai', name: options.model },
    generate: (request) => complete(request, base(request)),
    repair: (request, previous, violation) =>
      complete(request, [...base(request), { role: 'assistant', content: previous }, { role: 'user', content: repairMessage(violation) }]),
  };
}
