import type { FastifyInstance } from 'fastify';
import type { KeyStore } from '../auth/index.js';
import type { Config } from '../config/index.js';
import type { Embedder } from '../embed/index.js';
import { readManifest, snapshotIdOf } from '../index-store/index.js';
import { createTelemetry, indexFolderOf, indexLocationOf, loadSharedModels, openRuntime, type Runtime } from '../main.js';
import type { AdmissionLimits } from './admission.js';
import { buildApp } from './app.js';
import type { IndexStatus, ServiceContext } from './context.js';
import { listenFailure, type ListenAddress } from './listen.js';
import { createServiceMetrics } from './metrics.js';

const LISTEN_BACKLOG = 4096;

export interface Service {
  readonly app: FastifyInstance;
  readonly context: ServiceContext;
  /** Listen and return the address; a busy or forbidden address is a CitetraceError naming host and port. */
  listen(at: ListenAddress): Promise<string>;
  close(): Promise<void>;
}

/**
 * The running service: one runtime at a time, swapped for a fresh one when an ingest commits a
 * new manifest (watch or ingest in another process, on this machine or, for an index on object
 * storage, anywhere), so answers come from the latest commit within CITETRACE_INDEX_POLL_MS plus
 * the time to open it; the previous runtime is closed once requests in flight are done. When the
 * manifest cannot be read or a new commit cannot be opened, the last good runtime keeps
 * answering and the index status says so (GET /healthz, /metrics) until a later check succeeds.
 */
export async function createService(options: {
  readonly config: Config;
  readonly embedder: Embedder;
  readonly keys: KeyStore;
  readonly clock?: () => Date;
  readonly rateLimitPerMinute?: number;
  /** Overrides the configured maxInflight / maxQueue. */
  readonly admission?: AdmissionLimits;
  /** Progress of provisioning a model on first use (the pinned language model). */
  readonly onProgress?: (message: string) => void;
}): Promise<Service> {
  const clock = options.clock ?? (() => new Date());
  // One telemetry for the service's life, shared by the runtimes it swaps in, flushed on close.
  const telemetry = await createTelemetry(options.config);
  // Loaded once: a new index commit swaps the runtime, not the models.
  const models = await loadSharedModels(options.config, options.onProgress);
  const open = (): Promise<Runtime> => openRuntime({ config: options.config, embedder: options.embedder, models, clock, telemetry });
  let current = await open();
  let inFlight = 0;
  const retired: Runtime[] = [];
  const closeRetired = async (): Promise<void> => {
    if (inFlight > 0) return;
    await Promise.all(retired.splice(0).map((r) => r.close()));
  };
  const metrics = createServiceMetrics();
  const location = indexLocationOf(options.config);
  let index: IndexStatus = { state: 'current', error: null, checkedAt: clock().toISOString() };
  const refresh = async (): Promise<void> => {
    const checkedAt = clock().toISOString();
    try {
      const manifest = await readManifest(location);
      if (manifest !== null && snapshotIdOf(manifest) !== current.index.snapshotId) {
        const next = await open();
        if (next.index.snapshotId === current.index.snapshotId) await next.close();
        else {
          retired.push(current);
          current = next;
          await closeRetired();
        }
      }
      index = { state: 'current', error: null, checkedAt };
    } catch (error) {
      index = { state: 'stale', error: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error', checkedAt };
      metrics.observeIndexFailure();
    }
    metrics.observeIndex({ seq: current.index.manifest.seq, stale: index.state === 'stale' });
  };
  metrics.observeIndex({ seq: current.index.manifest.seq, stale: false });
  // One check at a time, the next one a poll interval after the last ended.
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let reloading = Promise.resolve();
  const schedule = (): void => {
    timer = setTimeout(() => {
      reloading = refresh().finally(() => {
        if (!closed) schedule();
      });
    }, options.config.indexPollMs);
  };
  schedule();

  const context: ServiceContext = {
    dataDir: indexFolderOf(options.config),
    runtime: () => current,
    indexStatus: () => index,
    today: () => clock().toISOString().slice(0, 10),
    metrics,
    async ask(request) {
      const runtime = current;
      inFlight += 1;
      const started = performance.now();
      try {
        const trace = await runtime.assistant.ask(request);
        metrics.observeAsk(trace, (performance.now() - started) / 1000);
        return trace;
      } finally {
        inFlight -= 1;
        await closeRetired();
      }
    },
  };
  const app = await buildApp({
    context,
    keys: options.keys,
    rateLimitPerMinute: options.rateLimitPerMinute ?? 600,
    admission: options.admission ?? { maxInflight: options.config.maxInflight, maxQueue: options.config.maxQueue },
  });
  return {
    app,
    context,
    async listen(at) {
      try {
        // Node's default backlog of 511 drops the SYNs of a burst of connections, which clients
        // retry after 1, 3 and 7 s; the kernel caps this at net.core.somaxconn (4096 by default).
        return await app.listen({ host: at.host, port: at.port, backlog: LISTEN_BACKLOG });
      } catch (error) {
        throw listenFailure(error, at);
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await app.close();
      await reloading;
      await Promise.all([current, ...retired].map((r) => r.close()));
      await models.close();
      await telemetry.shutdown();
    },
  };
}
