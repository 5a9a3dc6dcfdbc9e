import type { Trace } from '../domain/index.js';
import type { Runtime } from '../main.js';
import type { AskRequest } from '../pipeline/index.js';
import type { ServiceMetrics } from './metrics.js';

/** What routes need from the service: the current runtime, a measured ask, the clock. */
export interface ServiceContext {
  readonly dataDir: string;
  runtime(): Runtime;
  ask(request: AskRequest): Promise<Trace>;
  today(): string;
  readonly metrics: ServiceMetrics;
}
