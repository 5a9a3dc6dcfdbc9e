import { parentPort } from 'node:worker_threads';
import { CitetraceError } from '../domain/index.js';
import { createEmbedRun, type EmbedRun } from '../embed/transformers-embedder.js';
import type { InferenceReply, InferenceRequest } from './inference-thread.js';
import { createClassifierRun, type ProbabilitiesRun } from './pinned.js';

/** The inference thread's side (see inference-thread.ts): builds sessions and runs them on request. */
const port = parentPort;
if (port === null) throw new Error('inference-worker.ts runs as a worker thread');
const classifiers: ProbabilitiesRun[] = [];
const embedders: EmbedRun[] = [];

const held = <T>(list: readonly T[], handle: number): T => {
  const run = list[handle];
  if (run === undefined) throw new CitetraceError('INTERNAL', `the inference thread holds no session ${handle}`);
  return run;
};

const handled = async (request: InferenceRequest): Promise<unknown> => {
  switch (request.kind) {
    case 'classifier':
      return classifiers.push(await createClassifierRun(request.spec)) - 1;
    case 'embedder':
      return embedders.push(await createEmbedRun(request.spec)) - 1;
    case 'classify':
      return held(classifiers, request.handle)(request.texts, request.pairs);
    case 'embed':
      return held(embedders, request.handle)(request.texts);
  }
};

port.on('message', (message: { readonly id: number } & InferenceRequest) => {
  const reply = (body: InferenceReply): void => {
    port.postMessage(body);
  };
  handled(message).then(
    (value) => {
      reply({ id: message.id, ok: true, value });
    },
    (error: unknown) => {
      reply({ id: message.id, ok: false, ...(error instanceof CitetraceError ? { code: error.code } : {}), message: error instanceof Error ? error.message : String(error) });
    },
  );
});
