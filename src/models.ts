import os from 'node:os';
import type { Config } from './config/index.js';
import { createTransformersEmbedder, provisionModel, type Embedder } from './embed/index.js';
import { JUDGE_MODEL, loadSupportJudge, type SupportJudge } from './judge/judge.js';
import type { SessionPlacement } from './model/index.js';
import { loadScopeClassifier, SCOPE_MODEL, SCOPE_URGENT_MODEL, type ScopeClassifier } from './scope/classifier.js';

/**
 * The models that read a question (embedder, the two scope classifiers, support judge), loaded from a module
 * that imports nothing else heavy, so a command can start them before it imports the rest of the
 * composition root (src/main.ts): on the inference thread they load while this thread does.
 */

/**
 * Where the models answering questions run, as configured: their intra-op threads, and the inference thread or not;
 * with `onBuilding`, the loaders return before their sessions are built (see SessionPlacement).
 */
const placementOf = (config: Pick<Config, 'embedThreads' | 'inference'>, onBuilding?: SessionPlacement['onBuilding']): SessionPlacement => ({
  threads: config.embedThreads,
  onThread: config.inference === 'thread',
  ...(onBuilding === undefined ? {} : { onBuilding }),
});

/**
 * `bulk` is for ingest, which embeds passages in batches and gains from every core; answering
 * embeds one question at a time, many at once, with CITETRACE_EMBED_THREADS (default 1).
 */
export async function createEmbedder(
  config: Config,
  onProgress?: (message: string) => void,
  use: 'questions' | 'bulk' = 'questions',
  onBuilding?: SessionPlacement['onBuilding'],
): Promise<Embedder> {
  const model = await provisionModel({
    cacheDir: config.modelCacheDir,
    modelDir: config.modelDir,
    mavenRepo: config.mavenRepo,
    allowHub: config.allowHub,
    ...(onProgress ? { onProgress } : {}),
  });
  // Ingest embeds in batches on every core, in this thread; questions go to the inference thread.
  return use === 'bulk'
    ? createTransformersEmbedder({ model, threads: Math.max(config.embedThreads, os.availableParallelism()) })
    : createTransformersEmbedder({ model, ...placementOf(config, onBuilding) });
}

/** The shipped, hash-pinned scope classifier (an onnxruntime session: load it once per process). */
export const loadShippedClassifier = (config: Pick<Config, 'embedThreads' | 'inference'>, onBuilding?: SessionPlacement['onBuilding']): Promise<ScopeClassifier> =>
  loadScopeClassifier({ ...SCOPE_MODEL, ...placementOf(config, onBuilding) });

/** The shipped, hash-pinned second scope classifier, which can only add an emergency or crisis routing. */
export const loadShippedUrgentReader = (config: Pick<Config, 'embedThreads' | 'inference'>, onBuilding?: SessionPlacement['onBuilding']): Promise<ScopeClassifier> =>
  loadScopeClassifier({ ...SCOPE_URGENT_MODEL, ...placementOf(config, onBuilding) });

/** The shipped, hash-pinned support judge (an onnxruntime session: load it once per process). */
export const loadShippedJudge = (config: Pick<Config, 'embedThreads' | 'inference'>, onBuilding?: SessionPlacement['onBuilding']): Promise<SupportJudge> =>
  loadSupportJudge({ ...JUDGE_MODEL, ...placementOf(config, onBuilding) });

/** The question models, loading. */
export interface QuestionModels {
  /** Each resolves once its model's files are pinned as expected (the manifest, on this thread); its session may still be building. */
  readonly embedder: Promise<Embedder>;
  readonly classifier: Promise<ScopeClassifier>;
  readonly urgentReader: Promise<ScopeClassifier>;
  readonly judge: Promise<SupportJudge>;
  /** Settles when every session is built, or rejects with the first load failure (a model file missing or altered). */
  readonly ready: Promise<void>;
}

/**
 * Start loading the question models now, for a runtime opened later (`openRuntime({ started })`),
 * which can then start on a question while the sessions build: a call to a model waits for its
 * session, and the runtime commits no trace before `ready`. A load that fails is reported when the
 * runtime awaits it, or not at all when the command fails first for another reason (a missing
 * index): never as an unhandled rejection.
 */
export function startQuestionModels(config: Config, onProgress?: (message: string) => void): QuestionModels {
  const builds: Promise<unknown>[] = [];
  const onBuilding = (built: Promise<unknown>): void => {
    builds.push(built);
  };
  const started = {
    embedder: createEmbedder(config, onProgress, 'questions', onBuilding),
    classifier: loadShippedClassifier(config, onBuilding),
    urgentReader: loadShippedUrgentReader(config, onBuilding),
    judge: loadShippedJudge(config, onBuilding),
  };
  // Every loader has handed over its build by the time it resolves.
  const ready = Promise.all(Object.values(started)).then(async () => {
    await Promise.all(builds);
  });
  for (const loading of [...Object.values(started), ready]) loading.catch(() => undefined);
  return { ...started, ready };
}
