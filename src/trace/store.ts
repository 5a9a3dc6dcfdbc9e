import { CitetraceError, TraceSchema, type Outcome, type Reason, type Trace } from '../domain/index.js';
import { bodyDigest, canonicalJson } from './canonical.js';

export interface StoredTrace {
  readonly seq: number;
  readonly trace: Trace;
  /** The stored canonical JSON, byte for byte as hashed. */
  readonly body: string;
  /** sha256 of the canonical JSON, chained into `hash`. */
  readonly bodySha256: string;
  readonly prevHash: string;
  readonly hash: string;
  /** The columns stored beside the body for filtering: verification checks they still agree with it. */
  readonly columns: Readonly<Record<IndexedColumn, string | null>>;
  /** The payload was removed by a retention purge; digest and chain links remain. */
  readonly purged: boolean;
}

/** What a retention purge leaves of a trace: its indexed facts and when it was purged, no question or answer. */
export function tombstoneOf(columns: Readonly<Record<IndexedColumn, string | null>>, purgedAt: string): string {
  return canonicalJson({ ...columns, purged: true, purged_at: purgedAt });
}

/**
 * What a purge commits to about the tombstones it writes, in seq order: their retained fields
 * (role, outcome, created_at, ...) are hashed nowhere else once the payload is gone.
 */
export function tombstonesDigest(tombstones: readonly string[]): string {
  return bodyDigest(tombstones.join('\n'));
}

/** The trace itself, or a PURGED error when retention removed it (its chain link remains). */
export function payloadOf(stored: StoredTrace): Trace {
  if (stored.purged) throw new CitetraceError('PURGED', `trace ${stored.columns.trace_id ?? ''} was purged by retention; its hash-chain link remains`);
  return stored.trace;
}

/** The question as listed: purged traces have none. */
export function listedQuery(stored: StoredTrace): string {
  return stored.purged ? '[purged]' : stored.trace.query;
}

export function isTombstone(body: string): boolean {
  try {
    return (JSON.parse(body) as { purged?: unknown }).purged === true;
  } catch {
    return false;
  }
}

export const INDEXED_COLUMNS = ['trace_id', 'created_at', 'outcome', 'reason', 'role', 'as_of'] as const;
export type IndexedColumn = (typeof INDEXED_COLUMNS)[number];

/** The indexed columns as a trace's own fields give them. */
export function columnsOf(trace: Trace): Readonly<Record<IndexedColumn, string | null>> {
  return Object.fromEntries(INDEXED_COLUMNS.map((c) => [c, trace[c] ?? null])) as Record<IndexedColumn, string | null>;
}

/** A stored row as both stores read it back. */
/**
 * A row as the database returns it. The chain's fields are text when written, but a damaged record (a flipped byte in
 * a SQLite record header) can hold NULL, a number or a blob in any of them: they are read as `unknown`.
 */
export type TraceRow = Readonly<Record<IndexedColumn, string | null>> & {
  readonly seq: number | string;
  readonly body: unknown;
  readonly body_sha256: unknown;
  readonly prev_hash: unknown;
  readonly hash: unknown;
};

/** A chain field as stored: its text, or the empty text for a value that is not text, which matches no digest or hash, so verify names the record. */
const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A stored body as JSON.parse reads it (undefined: not JSON at all), and whether it is a contract trace. */
export interface BodyReading {
  readonly json: unknown;
  /** Whether the body is a contract trace: the record's `trace` is then the schema's reading of `json`. */
  readonly contract: boolean;
}

/** What `storedFromRow` read of each row's body, so verification reads a body once. */
const readings = new WeakMap<StoredTrace, BodyReading>();

/** A stored body as JSON, or undefined when it is not JSON at all (a finding, never a crash). */
function parseBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** A record's body as read: from the store's own reading of the row when there is one, else read now. */
export function bodyReading(stored: StoredTrace): BodyReading {
  const known = readings.get(stored);
  if (known !== undefined) return known;
  const json = parseBody(stored.body);
  const reading = { json, contract: TraceSchema.safeParse(json).success };
  readings.set(stored, reading);
  return reading;
}

/** A row whose body no longer parses is still returned (as far as it parses), so verification can name it. */
export function storedFromRow(row: TraceRow): StoredTrace {
  const body = textOf(row.body);
  const json = parseBody(body);
  const result = TraceSchema.safeParse(json);
  // isTombstone without parsing the body a second time.
  const purged = json !== null && typeof json === 'object' && (json as { purged?: unknown }).purged === true;
  const stored: StoredTrace = {
    seq: Number(row.seq),
    trace: result.success ? result.data : ((json ?? {}) as Trace),
    body,
    bodySha256: textOf(row.body_sha256),
    prevHash: textOf(row.prev_hash),
    hash: textOf(row.hash),
    columns: Object.fromEntries(INDEXED_COLUMNS.map((c) => [c, row[c]])) as Record<IndexedColumn, string | null>,
    purged,
  };
  readings.set(stored, { json, contract: result.success });
  return stored;
}

export interface TraceFilter {
  readonly outcome?: Outcome;
  readonly reason?: Reason;
  readonly limit: number;
  /** Return traces with seq below this (paging backwards from the newest). */
  readonly before?: number;
  /** Only traces citing this source. */
  readonly source?: string;
  /** created_at bounds, ISO timestamps or dates (inclusive from, exclusive to). */
  readonly from?: string;
  readonly to?: string;
  /** Only traces whose id starts with this (hex digits, and dashes where a UUID has them). */
  readonly idPrefix?: string;
}

const UUID_FLOOR = '00000000-0000-0000-0000-000000000000';
const UUID_CEILING = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/**
 * The ids a trace-id prefix stands for, as the inclusive range from the lowest to the highest UUID
 * with that prefix: both stores keep ids lower-case, so the range is read through the id's own index.
 */
export function idRangeOf(prefix: string): { readonly from: string; readonly to: string } {
  const text = prefix.toLowerCase();
  if (text.length > UUID_FLOOR.length || !/^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/u.test(text + UUID_FLOOR.slice(text.length))) {
    throw new CitetraceError('BAD_INPUT', `${prefix} cannot begin a trace id (a UUID)`);
  }
  return { from: text + UUID_FLOOR.slice(text.length), to: text + UUID_CEILING.slice(text.length) };
}

/** A recorded retention purge: every trace it tombstoned carries its `purged_at` and was created before `before`. */
export interface PurgeRecord {
  readonly id: number;
  readonly purgedAt: string;
  readonly before: string;
  /** How many traces it tombstoned. */
  readonly traces: number;
  /** tombstonesDigest of the tombstones it wrote; absent on purges made before migration 4 (left out, so their signed digests stay as signed). */
  readonly tombstones?: string;
}

/** A purge record as both stores read it back. */
export interface PurgeRow {
  readonly id: number | string;
  readonly purged_at: string;
  readonly before: string;
  readonly traces: number;
  readonly tombstones: string | null;
}

export const purgeFromRow = (r: PurgeRow): PurgeRecord => ({
  id: Number(r.id),
  purgedAt: r.purged_at,
  before: r.before,
  traces: r.traces,
  ...(r.tombstones === null ? {} : { tombstones: r.tombstones }),
});

export interface OutcomeCount {
  readonly outcome: string;
  readonly reason: string | null;
  readonly count: number;
}

/**
 * Append-only trace storage. `append` resolves only after the trace is durably committed; no
 * answer is shown before that. Implementations refuse updates and deletes in the database itself.
 */
export interface TraceStore {
  readonly id: string;
  append(trace: Trace): Promise<StoredTrace>;
  get(traceId: string): Promise<StoredTrace | null>;
  list(filter: TraceFilter): Promise<readonly StoredTrace[]>;
  /** The newest link of the hash chain, for an auditor to keep outside the system. */
  head(): Promise<{ readonly seq: number; readonly hash: string } | null>;
  /**
   * Retention: replace the payload of every trace created before `before` with a tombstone, keeping
   * its digest and chain links (so the chain still verifies), and record the purge.
   */
  purge(request: { readonly before: string; readonly now: Date }): Promise<{ readonly purged: number }>;
  /** Every recorded purge, oldest first. */
  purges(): Promise<readonly PurgeRecord[]>;
  /**
   * What is wrong with the store itself, one line each; empty when intact. Compares the stored
   * schema (tables, indexes, triggers, functions) with what the migrations create and runs the
   * database's own integrity check; on PostgreSQL, also who may do what to the store (grant
   * drift against the owner and service roles). Changes nothing.
   */
  selfCheck(): Promise<readonly string[]>;
  /** How many traces per outcome and reason. */
  counts(): Promise<readonly OutcomeCount[]>;
  /** Oldest first, from after `afterSeq`: for chain verification and replay. */
  scan(request: { readonly afterSeq: number; readonly limit: number }): Promise<readonly StoredTrace[]>;
  close(): Promise<void>;
}
