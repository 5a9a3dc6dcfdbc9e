import type OpenAI from 'openai';
import { NO_ANSWER, PROMPT_VERSION, renderPrompt, repairMessage, STRUCTURED_EXAMPLE, type ReplyForm } from './prompt.js';
import type { Draft, GenerateRequest, GenerationUsage, Generator } from './generator.js';
import { draftFromReply, replySchema } from './structured.js';

export interface OpenAIGeneratorOptions {
  /** Any OpenAI-compatible server: vLLM, Ollama, llama.cpp, OpenAI, Azure OpenAI. */
  readonly baseURL: string;
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly maxTokens: number;
}

type Messages = OpenAI.Chat.ChatCompletionMessageParam[];

/**
 * An LLM generator over the OpenAI chat API, held to the same citation contract as the
 * extractive one: the model sees only the labeled passages, delimited as data, and its answer is
 * validated by the pipeline like any other. It asks for the reply as JSON under a schema
 * (`response_format: json_schema`, strict) whose labels can only be those offered; a server
 * that refuses the schema (HTTP 400 or 422) is asked again in labeled free text, and from then on
 * only so. Each attempt records which form was used. Temperature 0; no retries inside the client
 * (the pipeline's one bounded repair is the only second attempt).
 */
export function createOpenAIGenerator(options: OpenAIGeneratorOptions): Generator {
  // The SDK loads on the first request, not at start-up: a CLI run that never calls the model pays nothing for it.
  let sdk: Promise<{ client: OpenAI; isRefusal: (error: unknown) => boolean }> | undefined;
  const sdkOf = (): NonNullable<typeof sdk> =>
    (sdk ??= import('openai').then(({ default: OpenAIClient, APIError }) => ({
      client: new OpenAIClient({ baseURL: options.baseURL, apiKey: options.apiKey, timeout: options.timeoutMs, maxRetries: 0 }),
      isRefusal: (error: unknown) => error instanceof APIError && (error.status === 400 || error.status === 422),
    })));
  let schemaRefused = false;

  const call = async (request: GenerateRequest, form: ReplyForm, messages: Messages): Promise<Draft> => {
    const { client } = await sdkOf();
    const started = performance.now();
    const response = await client.chat.completions.create(
      {
        model: options.model,
        messages,
        temperature: 0,
        // max_tokens, not max_completion_tokens: vLLM, Ollama and llama.cpp's server understand it.
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        max_tokens: options.maxTokens,
        ...(form === 'json'
          ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'citetrace_reply', strict: true, schema: replySchema(request.passages.map((p) => p.label)) } } }
          : {}),
      },
      request.signal ? { signal: request.signal } : {},
    );
    const text = response.choices[0]?.message.content?.trim();
    if (typeof text !== 'string') throw new Error('the model returned no message content');
    const usage: GenerationUsage = {
      model: response.model,
      mode: form === 'json' ? 'json_schema' : 'text',
      prompt_tokens: response.usage?.prompt_tokens ?? null,
      completion_tokens: response.usage?.completion_tokens ?? null,
      latency_ms: Math.round(performance.now() - started),
    };
    if (form === 'json') return draftFromReply(text, usage);
    // Small models often close the fixed form with a full stop; anything more is an answer to validate.
    if (text.replace(/[\s.!]+$/u, '') === NO_ANSWER) return { kind: 'abstain', reason: 'NO_SUPPORT', detail: `the model replied ${NO_ANSWER}`, usage };
    return { kind: 'answer', text, usage };
  };

  const messagesFor = (request: GenerateRequest, form: ReplyForm, repair?: { previous: string; violation: string }): Messages => {
    const prompt = renderPrompt(request.question, request.passages, form);
    const base: Messages = [
      { role: 'system', content: prompt.system },
      ...(form === 'json'
        ? [
            { role: 'user' as const, content: STRUCTURED_EXAMPLE.user },
            { role: 'assistant' as const, content: STRUCTURED_EXAMPLE.reply },
          ]
        : []),
      { role: 'user', content: prompt.user },
    ];
    return repair === undefined ? base : [...base, { role: 'assistant', content: repair.previous }, { role: 'user', content: repairMessage(repair.violation, form) }];
  };

  const complete = async (request: GenerateRequest, repair?: { previous: string; violation: string }): Promise<Draft> => {
    if (!schemaRefused) {
      try {
        return await call(request, 'json', messagesFor(request, 'json', repair));
      } catch (error) {
        if (!(await sdkOf()).isRefusal(error)) throw error;
        schemaRefused = true;
      }
    }
    return call(request, 'text', messagesFor(request, 'text', repair));
  };

  return {
    id: `openai-chat(${options.model}@${options.baseURL})`,
    promptVersion: PROMPT_VERSION,
    model: { system: 'openai', name: options.model },
    generate: (request) => complete(request),
    repair: (request, previous, violation) => complete(request, { previous, violation }),
  };
}
