/**
 * The one error table: every failure that crosses a stage boundary carries a code from here,
 * and the code alone decides the CLI exit code and (later) the HTTP status.
 * Expected outcomes (abstentions, refusals, citation gaps) are values, never errors.
 */
export const ERROR_CODES = {
  BAD_INPUT: { exit: 2, http: 400 },
  BAD_POLICY_FILE: { exit: 2, http: 422 },
  REVISION_CONFLICT: { exit: 2, http: 409 },
  MODEL_MISMATCH: { exit: 2, http: 409 },
  NOT_FOUND: { exit: 2, http: 404 },
  /** The trace's payload was removed by a retention purge. */
  PURGED: { exit: 2, http: 410 },
  INDEX_EMPTY: { exit: 2, http: 409 },
  INDEX_BUSY: { exit: 1, http: 503 },
  MODEL_UNAVAILABLE: { exit: 1, http: 503 },
  STORE_FAILURE: { exit: 1, http: 500 },
  INTERNAL: { exit: 1, http: 500 },
  /** `verify` found something that is not intact (its findings are listed on stdout). */
  VERIFY_FAILED: { exit: 1, http: 409 },
  /** An index file cannot be read (corrupted or truncated): one line naming it, never a panic. */
  INDEX_CORRUPT: { exit: 2, http: 500 },
  /** Object storage holding the index is unreachable or refuses the credentials: one line naming it. */
  STORAGE_UNAVAILABLE: { exit: 2, http: 503 },
  /** Another process holds the index writer lease: one ingester writes an index. */
  INDEX_LEASED: { exit: 2, http: 409 },
  /** A quality gate asked for on the command line was missed (eval thresholds, replay --fail-on-change). */
  GATE_FAILED: { exit: 3, http: 409 },
} as const satisfies Record<string, { readonly exit: 1 | 2 | 3; readonly http: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class CitetraceError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'CitetraceError';
    this.code = code;
  }

  get exitCode(): 1 | 2 | 3 {
    return ERROR_CODES[this.code].exit;
  }
}

/** Wrap a foreign error once, keeping it as `cause`; our own errors pass through unchanged. */
export function wrapError(code: ErrorCode, message: string, cause: unknown): CitetraceError {
  if (cause instanceof CitetraceError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new CitetraceError(code, `${message}: ${detail}`, { cause });
}

export function assertNever(value: never): never {
  throw new CitetraceError('INTERNAL', `unexpected value ${JSON.stringify(value)}`);
}
