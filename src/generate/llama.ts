import path from 'node:path';
import type { ChatHistoryItem, LlamaGrammar } from 'node-llama-cpp';
import { CitetraceError } from '../domain/index.js';
import type { Draft, GenerateRequest, GenerationUsage, Generator } from './generator.js';
import type { GgufFile } from './provision-gguf.js';
import { PROMPT_VERSION, renderPrompt, repairMessage, STRUCTURED_EXAMPLE } from './prompt.js';
import { draftFromReply, replySchema } from './structured.js';

export interface LlamaGeneratorOptions {
  readonly model: GgufFile;
  /** llama.cpp threads; on a small machine shared with other work one is fastest (more spin-wait). */
  readonly threads: number;
  readonly contextSize: number;
  readonly maxTokens: number;
  /** Budget of one attempt, waiting for the model included. */
  readonly timeoutMs: number;
}

/** A generator that holds a loaded model until closed. */
export interface LocalGenerator extends Generator {
  close(): Promise<void>;
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

/** node-llama-cpp is an optional dependency: its absence is reported, not a crash. */
export async function importNodeLlamaCpp(): Promise<NodeLlamaCpp | null> {
  try {
    return await import('node-llama-cpp');
  } catch {
    return null;
  }
}

/**
 * A GGUF model run in-process by llama.cpp (node-llama-cpp's prebuilt CPU binary; never compiled
 * here), decoding under a grammar compiled from the reply's JSON Schema: the output can only be
 * an answer whose sentences carry labels of the passages offered, or an abstention with a reason.
 * Requests take turns on one context sequence (its common prefix, the instructions, is reused).
 */
export async function loadLlamaGenerator(lib: NodeLlamaCpp, options: LlamaGeneratorOptions): Promise<LocalGenerator> {
  // llama.cpp's own error lines are not printed: a bad file gets one line, naming llama.cpp's reason.
  let loadError: string | undefined;
  const llama = await lib.getLlama({
    gpu: false,
    build: 'never',
    maxThreads: options.threads,
    logLevel: lib.LlamaLogLevel.error,
    logger: (_level, message) => {
      const line = message.replace(/^\S+: /u, '').trim();
      if (line.startsWith('error loading model')) loadError ??= line;
    },
  });
  let model;
  try {
    model = await llama.loadModel({ modelPath: options.model.path, gpuLayers: 0 });
  } catch (error) {
    await llama.dispose();
    throw new CitetraceError('BAD_INPUT', `language model ${options.model.path} cannot be loaded: ${loadError ?? (error as Error).message.split('\n')[0] ?? ''}`);
  }
  const context = await model.createContext({ contextSize: options.contextSize, threads: options.threads, sequences: 1 });
  const chat = new lib.LlamaChat({ contextSequence: context.getSequence() });
  const name = path.basename(options.model.path).replace(/\.gguf$/iu, '');
  // One grammar per set of offered labels (S1..Sk), compiled once.
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  const grammarFor = (labels: readonly string[]): Promise<LlamaGrammar> => {
    const key = labels.join(',');
    let grammar = grammars.get(key);
    if (grammar === undefined) {
      grammar = llama.createGrammarForJsonSchema(replySchema(labels, 'gbnf') as never);
      grammars.set(key, grammar);
    }
    return grammar;
  };

  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(job, job);
    queue = run.catch(() => undefined);
    return run;
  };

  const complete = (request: GenerateRequest, repair?: { previous: string; violation: string }): Promise<Draft> => {
    const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(request.signal ? [request.signal] : [])]);
    return serialized(async () => {
      signal.throwIfAborted();
      const prompt = renderPrompt(request.question, request.passages, 'json');
      const history: ChatHistoryItem[] = [
        { type: 'system', text: prompt.system },
        { type: 'user', text: STRUCTURED_EXAMPLE.user },
        { type: 'model', response: [STRUCTURED_EXAMPLE.reply] },
        { type: 'user', text: prompt.user },
        ...(repair === undefined
          ? []
          : [
              { type: 'model' as const, response: [repair.previous] },
              { type: 'user' as const, text: repairMessage(repair.violation, 'json') },
            ]),
        { type: 'model', response: [] },
      ];
      const started = performance.now();
      const result = await chat.generateResponse(history, {
        grammar: await grammarFor(request.passages.map((p) => p.label)),
        maxTokens: options.maxTokens,
        temperature: 0,
        signal,
        stopOnAbortSignal: false,
      });
      const usage: GenerationUsage = {
        model: `${name}@sha256:${options.model.sha256.slice(0, 16)}`,
        mode: 'grammar',
        prompt_tokens: chat.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer).length,
        completion_tokens: model.tokenize(result.response).length,
        latency_ms: Math.round(performance.now() - started),
      };
      return draftFromReply(result.response, usage);
    });
  };

  return {
    id: `llama.cpp(${name}@sha256:${options.model.sha256.slice(0, 16)}, grammar)`,
    promptVersion: PROMPT_VERSION,
    model: { system: 'llama.cpp', name },
    generate: (request) => complete(request),
    repair: (request, previous, violation) => complete(request, { previous, violation }),
    close: () => llama.dispose(),
  };
}
