/**
 * A minimal OpenAI-compatible chat-completions server around node-llama-cpp, so that citetrace's
 * own OpenAI adapter (src/generate/openai.ts) drives a real local model unchanged through
 * CITETRACE_LLM_BASE_URL.
 *
 *   npx tsx bench/llm/server.ts [--model FILE] [--port 8088] [--host 127.0.0.1] [--threads 1] [--context 2048] [--wrapper gemma|general|auto]
 *
 * Routes: POST /v1/chat/completions (non-streaming; greedy decoding unless temperature > 0),
 * GET /v1/models, GET /healthz. One context sequence, requests served one at a time (a queue),
 * CPU only (`gpu: false`), prebuilt binary only (`build: "never"`: never compiles llama.cpp).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GemmaChatWrapper, GeneralChatWrapper, getLlama, LlamaChat, LlamaLogLevel, type ChatHistoryItem, type ChatWrapper } from 'node-llama-cpp';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: process.env.LLM_MODEL_FILE ?? path.join(here, '.models', 'gemma-3-270m-q4_k_m.gguf') },
    port: { type: 'string', default: process.env.LLM_PORT ?? '8088' },
    host: { type: 'string', default: '127.0.0.1' },
    threads: { type: 'string', default: process.env.LLM_THREADS ?? '1' },
    context: { type: 'string', default: process.env.LLM_CONTEXT ?? '2048' },
    wrapper: { type: 'string', default: process.env.LLM_WRAPPER ?? 'gemma' },
  },
});

const threads = Number(args.threads);
const contextSize = Number(args.context);
const started = performance.now();
const llama = await getLlama({ gpu: false, build: 'never', maxThreads: threads, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: args.model, gpuLayers: 0 });
const context = await model.createContext({ contextSize, threads, batchSize: 512, sequences: 1 });
const chatWrapper: ChatWrapper | 'auto' = args.wrapper === 'general' ? new GeneralChatWrapper() : args.wrapper === 'auto' ? 'auto' : new GemmaChatWrapper();
const chat = new LlamaChat({ contextSequence: context.getSequence(), chatWrapper });
const modelName = path.basename(args.model).replace(/\.gguf$/u, '');
process.stderr.write(
  `llm-server: ${modelName} (${model.fileInfo.metadata.general.name ?? '?'}) loaded in ${Math.round(performance.now() - started)} ms; ` +
    `binary ${llama.buildType}, gpu ${String(llama.gpu)}, threads ${threads}, context ${context.contextSize}, wrapper ${chat.chatWrapper.wrapperName}\n`,
);

interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant';
  content: string | { type: string; text?: string }[] | null;
}
interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  seed?: number;
}

function text(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

function toHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m): ChatHistoryItem => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { type: 'system', text: text(m.content) };
      case 'user':
        return { type: 'user', text: text(m.content) };
      case 'assistant':
        return { type: 'model', response: [text(m.content)] };
    }
  });
  // The model's turn to answer: an empty model response is completed.
  history.push({ type: 'model', response: [] });
  return history;
}

/** Tokens of the whole prompt as the chat wrapper renders it (OpenAI's prompt_tokens), not just those evaluated anew. */
function promptTokens(history: ChatHistoryItem[]): number {
  const { contextText } = chat.chatWrapper.generateContextState({ chatHistory: history });
  return contextText.tokenize(model.tokenizer).length;
}

let queue: Promise<unknown> = Promise.resolve();
function serialized<T>(job: () => Promise<T>): Promise<T> {
  const run = queue.then(job, job);
  queue = run.catch(() => undefined);
  return run;
}

async function complete(request: ChatRequest, signal: AbortSignal): Promise<object> {
  if (!Array.isArray(request.messages) || request.messages.length === 0) throw new HttpError(400, 'messages must be a non-empty array');
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? 256;
  const history = toHistory(request.messages);
  const prompt_tokens = promptTokens(history);
  if (prompt_tokens + maxTokens > context.contextSize) {
    throw new HttpError(400, `prompt (${prompt_tokens} tokens) + max_tokens (${maxTokens}) exceed the context size ${context.contextSize}`);
  }
  return serialized(async () => {
    const t0 = performance.now();
    let firstTokenMs: number | null = null;
    const result = await chat.generateResponse(history, {
      maxTokens,
      temperature: request.temperature ?? 0,
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      signal,
      stopOnAbortSignal: false,
      onTextChunk: () => {
        firstTokenMs ??= Math.round(performance.now() - t0);
      },
    });
    const completion_tokens = model.tokenize(result.response).length;
    const elapsed = Math.round(performance.now() - t0);
    process.stderr.write(`llm-server: ${prompt_tokens} prompt + ${completion_tokens} completion tokens, ${elapsed} ms (first token ${firstTokenMs ?? '-'} ms), stop ${result.metadata.stopReason}\n`);
    return {
      id: `chatcmpl-${crypto.randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: modelName,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: result.response },
          finish_reason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        },
      ],
      usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
    };
  });
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url === '/healthz') {
    send(res, 200, { ok: true, model: modelName });
    return;
  }
  if (req.method === 'GET' && url === '/v1/models') {
    send(res, 200, { object: 'list', data: [{ id: modelName, object: 'model', created: 0, owned_by: 'local' }] });
    return;
  }
  if (req.method === 'POST' && url === '/v1/chat/completions') {
    // A client that gives up (timeout) aborts its generation instead of leaving it to run.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    void readBody(req)
      .then((raw) => complete(JSON.parse(raw) as ChatRequest, abort.signal))
      .then(
        (body) => {
          send(res, 200, body);
        },
        (error: unknown) => {
          const status = error instanceof HttpError ? error.status : error instanceof SyntaxError ? 400 : 500;
          const message = error instanceof Error ? error.message : String(error);
          if (!res.headersSent && !res.destroyed) send(res, status, { error: { message, type: status === 400 ? 'invalid_request_error' : 'server_error' } });
        },
      );
    return;
  }
  send(res, 404, { error: { message: `no route ${req.method ?? ''} ${url}`, type: 'invalid_request_error' } });
});

server.listen(Number(args.port), args.host, () => {
  process.stderr.write(`llm-server: listening on http://${args.host}:${args.port}/v1\n`);
});

const shutdown = (): void => {
  server.close();
  void llama.dispose().finally(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
