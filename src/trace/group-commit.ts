import { TraceSchema, wrapError } from '../domain/index.js';
import type { StoredTrace, TraceStore } from './store.js';

type Trace = StoredTrace['trace'];

/** At most this many traces share one transaction. */
const MAX_BATCH = 256;

interface Waiting {
  readonly trace: Trace;
  readonly resolve: (stored: StoredTrace) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit over a store's one-transaction append (`commitAll`: the chain head, then each trace
 * chained to the one before, committed together): the appends that arrive in the same turn of the
 * event loop, or while a commit is in flight, share the next transaction, so one flush to disk
 * covers them all; none is acknowledged before its commit returns. A batch that fails is retried
 * one trace at a time, so one bad trace fails alone. `drained` settles when nothing is waiting, for
 * `close`.
 */
export function groupCommit(commitAll: (traces: readonly Trace[]) => StoredTrace[] | Promise<StoredTrace[]>): Pick<TraceStore, 'append'> & { drained(): Promise<void> } {
  let waiting: Waiting[] = [];
  let running: Promise<void> | null = null;
  const run = async (): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_BATCH);
      waiting = waiting.slice(batch.length);
      try {
        const stored = await commitAll(batch.map((w) => w.trace));
        batch.forEach((w, i) => {
          w.resolve(stored[i] as StoredTrace);
        });
      } catch (error) {
        if (batch.length === 1) batch[0]?.reject(wrapError('STORE_FAILURE', 'trace append failed', error));
        else
          for (const w of batch) {
            try {
              w.resolve((await commitAll([w.trace]))[0] as StoredTrace);
            } catch (alone) {
              w.reject(wrapError('STORE_FAILURE', 'trace append failed', alone));
            }
          }
      }
    }
    running = null;
  };
  return {
    append(trace) {
      const parsed = TraceSchema.safeParse(trace);
      if (!parsed.success) return Promise.reject(wrapError('STORE_FAILURE', 'trace append failed', parsed.error));
      return new Promise<StoredTrace>((resolve, reject) => {
        waiting.push({ trace: parsed.data, resolve, reject });
        running ??= run();
      });
    },
    drained: () => running ?? Promise.resolve(),
  };
}
