/**
 * Admission control for expensive requests: at most `maxInflight` run at once, at most
 * `maxQueue` wait for a slot, and anything beyond is refused at once, so an overloaded service
 * answers 503 in milliseconds instead of queueing every request until clients time out.
 * Refusal is an expected outcome, so it is a value, never a throw.
 */
export interface AdmissionLimits {
  readonly maxInflight: number;
  readonly maxQueue: number;
}

export type Admitted<T> =
  | { readonly status: 'done'; readonly value: T }
  /** Every slot busy and the queue full: refuse, retry after `retryAfterSeconds`. */
  | { readonly status: 'refused'; readonly retryAfterSeconds: number }
  /** The caller gave up (its signal aborted) while waiting in the queue; nothing was run. */
  | { readonly status: 'abandoned' };

export interface Admission {
  readonly limits: AdmissionLimits;
  /** True when a request arriving now would be refused: a cheap check before any parsing. */
  full(): boolean;
  /** Seconds a refused client should wait: the time to drain what is admitted, at least 1. */
  retryAfterSeconds(): number;
  run<T>(options: { readonly work: () => Promise<T>; readonly signal?: AbortSignal }): Promise<Admitted<T>>;
  stats(): { readonly inflight: number; readonly queued: number };
}

const MAX_RETRY_AFTER_SECONDS = 60;

export function createAdmission(limits: AdmissionLimits): Admission {
  let inflight = 0;
  const waiting: (() => void)[] = [];
  // Exponentially weighted mean run time, for Retry-After; starts at 100 ms.
  let meanSeconds = 0.1;

  const full = (): boolean => inflight >= limits.maxInflight && waiting.length >= limits.maxQueue;
  const retryAfterSeconds = (): number => {
    // No slot at all (only a bench sets that: the configuration asks for at least one) drains nothing.
    const rounds = limits.maxInflight > 0 ? (inflight + waiting.length) / limits.maxInflight : 0;
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(rounds * meanSeconds)));
  };
  const release = (): void => {
    const next = waiting.shift();
    // A slot passes straight to the next waiter, so `inflight` stays as it is.
    if (next === undefined) inflight -= 1;
    else next();
  };

  return {
    limits,
    full,
    retryAfterSeconds,
    stats: () => ({ inflight, queued: waiting.length }),
    async run<T>(options: { readonly work: () => Promise<T>; readonly signal?: AbortSignal }): Promise<Admitted<T>> {
      if (inflight < limits.maxInflight) inflight += 1;
      else if (waiting.length < limits.maxQueue) await new Promise<void>((resolve) => waiting.push(resolve));
      else return { status: 'refused', retryAfterSeconds: retryAfterSeconds() };
      // From here this call holds a slot and must release it.
      if (options.signal?.aborted === true) {
        release();
        return { status: 'abandoned' };
      }
      const started = performance.now();
      try {
        return { status: 'done', value: await options.work() };
      } finally {
        meanSeconds = 0.8 * meanSeconds + 0.2 * ((performance.now() - started) / 1000);
        release();
      }
    },
  };
}
