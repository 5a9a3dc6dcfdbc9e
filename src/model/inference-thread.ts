import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CitetraceError, ERROR_CODES, wrapError, type ErrorCode } from '../domain/index.js';
import type { EmbedderSpec, EmbedRun } from '../embed/transformers-embedder.js';
import type { ClassifierSpec, ProbabilitiesRun } from './pinned.js';

/**
 * The process's inference thread: a worker thread that holds the onnxruntime sessions (embedder,
 * scope classifier, support judge) and runs them, so the event loop never waits on a model: a
 * request refused under overload, a health check or a page of the console is answered while a
 * question is being read. onnxruntime-node runs a session synchronously on the thread that calls
 * it; here that thread is this one worker, one run at a time, with the same inputs and so the same
 * outputs as in the main thread (test/inference-thread.test.ts).
 */
export interface InferenceThread {
  classifier(spec: ClassifierSpec): Promise<ProbabilitiesRun>;
  embedder(spec: EmbedderSpec): Promise<EmbedRun>;
}

/** What the main thread asks of the worker (src/model/inference-worker.ts). */
export type InferenceRequest =
  | { readonly kind: 'classifier'; readonly spec: ClassifierSpec }
  | { readonly kind: 'embedder'; readonly spec: EmbedderSpec }
  | { readonly kind: 'classify'; readonly handle: number; readonly texts: readonly string[]; readonly pairs?: readonly string[] }
  | { readonly kind: 'embed'; readonly handle: number; readonly texts: readonly string[] };

export type InferenceReply = { readonly id: number } & ({ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly code?: string; readonly message: string });

let shared: InferenceThread | undefined;

/** The one inference thread of this process, started on first use. */
export function inferenceThread(): InferenceThread {
  shared ??= startInferenceThread();
  return shared;
}

const isErrorCode = (code: string | undefined): code is ErrorCode => code !== undefined && Object.hasOwn(ERROR_CODES, code);

/** Tests and benches run the TypeScript source: the worker registers tsx (a dev dependency) before loading it. */
function typescriptWorker(): Worker {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/u, '.mjs')).href;
  const source = new URL('./inference-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`, { eval: true });
}

function startInferenceThread(): InferenceThread {
  // From the bundle (scripts/build.ts) this code runs in a dist/chunks/ file: the worker is dist/model/inference-worker.js.
  const worker = import.meta.url.endsWith('.ts') ? typescriptWorker() : new Worker(new URL('../model/inference-worker.js', import.meta.url));
  // The thread keeps the process alive only while it owes an answer.
  worker.unref();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  let stopped: CitetraceError | undefined;
  const stop = (error: CitetraceError): void => {
    stopped ??= error;
    for (const waiting of pending.values()) waiting.reject(stopped);
    pending.clear();
  };
  worker.on('message', (reply: InferenceReply) => {
    const waiting = pending.get(reply.id);
    if (waiting === undefined) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(new CitetraceError(isErrorCode(reply.code) ? reply.code : 'MODEL_UNAVAILABLE', reply.message));
  });
  worker.on('error', (error) => {
    stop(wrapError('MODEL_UNAVAILABLE', 'the inference thread failed', error));
  });
  worker.on('exit', (code) => {
    stop(new CitetraceError('MODEL_UNAVAILABLE', `the inference thread exited with code ${code}`));
  });
  const call = <T>(request: InferenceRequest): Promise<T> => {
    if (stopped !== undefined) return Promise.reject(stopped);
    const id = next;
    next += 1;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, ...request });
    });
  };
  return {
    async classifier(spec) {
      const handle = await call<number>({ kind: 'classifier', spec });
      return (texts, pairs) => call<number[][]>({ kind: 'classify', handle, texts, ...(pairs === undefined ? {} : { pairs }) });
    },
    async embedder(spec) {
      const handle = await call<number>({ kind: 'embedder', spec });
      return (texts) => call<Float32Array[]>({ kind: 'embed', handle, texts });
    },
  };
}
