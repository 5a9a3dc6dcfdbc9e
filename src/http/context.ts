import type { Trace } from '../domain/index.js';
import type { Runtime } from '../main.js';
import type { AskRequest } from '../pipeline/index.js';
import type { ServiceMetrics } from './metrics.js';

/**
 * Whether the service answers from the latest index commit: `stale` when the last check could
 * not read the manifest or open a newer commit (object storage unreachable, credentials refused,
 * a commit that cannot be read); the last good snapshot keeps answering meanwhile.
 */
export interface IndexStatus {
  readonly state: 'current' | 'stale';
  /** Why the last check failed, one line. */
  readonly error: string | null;
  readonly checkedAt: string | null;
}

/** What routes need from the service: the current runtime, a measured ask, the clock. */
export interface ServiceContext {
  /** The local folder the index is read from (the data folder, or the copy of an index on object storage). */
  readonly dataDir: string;
  runtime(): Runtime;
  indexStatus(): IndexStatus;
  ask(request: AskRequest): Promise<Trace>;
  today(): string;
  readonly metrics: ServiceMetrics;
}
