import { selectInForce, TraceSchema, type IsoDate, type RevisionId, type RevisionMeta, type Role, type SourceId, type Trace } from '../domain/index.js';
import { readCommit, snapshotIdOf, type IndexAt, type PolicyIndex } from '../index-store/index.js';
import { bodyDigest, bodyReading, chainHash, columnsOf, GENESIS_HASH, INDEXED_COLUMNS, isCanonicalOf, tombstoneOf, type StoredTrace, type TraceStore } from '../trace/index.js';
import { createPurgeLedger } from './verify-purges.js';

export interface TraceVerdict {
  readonly traceId: string;
  readonly seq: number;
  /** Empty when the trace verifies. */
  readonly problems: readonly string[];
}

export interface VerifyReport {
  readonly checked: number;
  /** Traces whose payload a retention purge removed: their links were checked, their content cannot be. */
  readonly purged: number;
  readonly failed: readonly TraceVerdict[];
  /** The first trace whose link to its predecessor is broken, if any. */
  readonly firstBrokenLink: { readonly seq: number; readonly traceId: string } | null;
  /** Findings about the store as a whole: its schema and integrity, its purge records, reads that failed. */
  readonly store: readonly string[];
}

/** Every finding, the store's first: empty when everything checked is intact. */
export function findingsOf(report: VerifyReport): string[] {
  // Each trace's findings name it, as `verify` prints them: a script reading --json needs no second lookup.
  return [...report.store, ...report.failed.flatMap((f) => f.problems.map((p) => `${f.traceId} (#${f.seq}): ${p}`))];
}

/** A chain head kept outside the store (a signed checkpoint, or a head an auditor wrote down): trace `seq` must still hash to `hash`. */
export interface Anchor {
  /** Names the head in findings, e.g. "checkpoint line 3 (#1000, 2026-12-02T10:00:00.000Z)". */
  readonly label: string;
  readonly seq: number;
  readonly hash: string;
}

/** What an index commit says, read once per run: its snapshot id, and per role and date what was in force. */
type CommitView =
  | { readonly problem: string }
  | { readonly snapshot: string; readonly inForce: (role: Role, asOf: IsoDate) => ReadonlyMap<SourceId, RevisionMeta> };

interface VerifyContext {
  readonly index: PolicyIndex;
  readonly dataDir: IndexAt;
  /** Computed once per run: 100k traces cite the same few revisions and commits. */
  readonly bodies: Map<RevisionId, Promise<string | null>>;
  readonly commits: Map<number, Promise<CommitView>>;
}

function once<K, V>(cache: Map<K, Promise<V>>, key: K, make: () => Promise<V>): Promise<V> {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

async function commitView(seq: number, ctx: VerifyContext): Promise<CommitView> {
  let commit;
  try {
    commit = Number.isInteger(seq) ? await readCommit(ctx.dataDir, seq) : null;
  } catch (error) {
    return { problem: `index commit ${seq} cannot be read (${messageOf(error).split('\n')[0] ?? ''})` };
  }
  if (commit === null) return { problem: `index commit ${seq} is not in the commit log` };
  const known = [...ctx.index.revisions.values()].filter((r) => r.ingestSeq <= seq);
  const present = new Set(commit.present);
  const chosen = new Map<string, ReadonlyMap<SourceId, RevisionMeta>>();
  return {
    snapshot: snapshotIdOf(commit),
    inForce: (role, asOf) => {
      let found = chosen.get(`${role}@${asOf}`);
      if (found === undefined) {
        found = selectInForce(known, { role, asOf, present });
        chosen.set(`${role}@${asOf}`, found);
      }
      return found;
    },
  };
}

function chainProblems(row: StoredTrace, previousHash: string | null): string[] {
  const problems: string[] = [];
  if (previousHash !== null && row.prevHash !== previousHash) problems.push(`chain: prev_hash does not match the hash of trace #${row.seq - 1} (a trace was removed or altered)`);
  // A purged record keeps only its digest: the chain is checked, the removed payload cannot be.
  if (!row.purged && bodyDigest(row.body) !== row.bodySha256) problems.push('chain: stored record does not match its digest (the record was altered)');
  if (chainHash(row.prevHash, row.bodySha256) !== row.hash) problems.push('chain: stored hash does not match the chain (a link was altered)');
  return problems;
}

async function contentProblems(trace: Trace, ctx: VerifyContext): Promise<string[]> {
  const problems: string[] = [];
  const body = (revision: RevisionId): Promise<string | null> => once(ctx.bodies, revision, () => ctx.index.revisionBody(revision));
  for (const r of trace.retrieved) {
    const text = await body(r.revision);
    if (text === null) problems.push(`${r.label}: revision ${r.revision} is not in the index`);
    else if (text.slice(r.start, r.end) !== r.text) problems.push(`${r.label}: passage text differs from revision ${r.revision} [${r.start}, ${r.end})`);
  }
  const byLabel = new Map(trace.retrieved.map((r) => [r.label, r]));
  for (const c of trace.citations) {
    const r = byLabel.get(c.label);
    if (r === undefined) problems.push(`citation ${c.label}: no retrieved passage has this label`);
    else if (r.text !== c.text || r.revision !== c.revision || r.chunk_id !== c.chunk_id) problems.push(`citation ${c.label}: differs from the retrieved passage with that label`);
  }
  if (trace.outcome === 'answer') {
    if (trace.sentences.length === 0) problems.push('answer: no sentences');
    for (const s of trace.sentences) {
      if (s.labels.length === 0) problems.push(`answer: sentence without a label: ${s.text}`);
      for (const label of s.labels) if (!byLabel.get(label)?.offered) problems.push(`answer: label ${label} was not offered to the generator`);
    }
    if (trace.answer !== trace.sentences.map((s) => s.text).join(' ')) problems.push('answer: shown text differs from its sentences');
  }
  problems.push(...(await inForceProblems(trace, ctx)));
  return problems;
}

/** Each cited revision must have been in force for the role on as_of, at the index commit the trace names. */
async function inForceProblems(trace: Trace, ctx: VerifyContext): Promise<string[]> {
  if (trace.citations.length === 0) return [];
  const seq = Number(trace.config.index_snapshot.split(':')[0]);
  const commit = await once(ctx.commits, seq, () => commitView(seq, ctx));
  if ('problem' in commit) return [`in force: ${commit.problem}`];
  if (commit.snapshot !== trace.config.index_snapshot) return [`in force: index commit ${seq} is now ${commit.snapshot}, not the ${trace.config.index_snapshot} the trace was answered from`];
  const inForce = commit.inForce(trace.role, trace.as_of);
  return trace.citations
    .filter((c) => inForce.get(c.source_id)?.revision !== c.revision)
    .map((c) => `in force: cited revision ${c.revision} of ${c.source_id} was not in force for ${trace.role} on ${trace.as_of}`);
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Kept heads against the chain as it is walked: each must be reached, with the same hash. Trace
 * #seq hashing the same proves nothing at or before it changed (RFC 9162's consistency, by
 * recomputation); a head beyond the end means traces were cut off.
 */
function createAnchorCheck(anchors: readonly Anchor[]): {
  readonly at: (row: StoredTrace) => string[];
  readonly unreached: (last: number) => string[];
} {
  const reached = new Set<number>([0]);
  return {
    at(row) {
      reached.add(row.seq);
      return anchors
        .filter((a) => a.seq === row.seq)
        .filter((a) => a.hash !== row.hash)
        .map((a) => `${a.label}: trace #${row.seq} hashes to ${row.hash}, the kept head says ${a.hash} (the chain was rewritten at or before #${row.seq}, or the head is from another store)`);
    },
    unreached: (last) =>
      anchors
        .filter((a) => !reached.has(a.seq) || (a.seq === 0 && a.hash !== GENESIS_HASH))
        .map((a) =>
          a.seq > last
            ? `${a.label}: the chain ends at #${last}, before the kept head #${a.seq} (traces were removed)`
            : `${a.label}: trace #${a.seq} is not in the chain (removed, or the head is from another store)`,
        ),
  };
}

/**
 * Contract section 6: the hash chain is intact; every retrieved passage is its revision's text
 * between start and end; every citation resolves to the retrieved passage with its label; every
 * answer sentence carries a known label; each cited revision was in force for the role on as_of.
 * Verifying every trace checks the store itself too (schema, integrity, purge records, kept
 * heads). Every finding is listed; a malformed record or a failed read is a finding, and nothing
 * is written.
 */
export async function verifyTraces(options: {
  readonly store: TraceStore;
  readonly index: PolicyIndex;
  readonly dataDir: IndexAt;
  /** One trace, or every trace in chain order when omitted. */
  readonly traceId?: string | undefined;
  /** Heads kept outside the store, checked when every trace is (RFC 9162's consistency check, by walking the chain). */
  readonly anchors?: readonly Anchor[];
  readonly onProgress?: (checked: number) => void;
}): Promise<VerifyReport> {
  const ctx: VerifyContext = { index: options.index, dataDir: options.dataDir, bodies: new Map(), commits: new Map() };
  const failed: TraceVerdict[] = [];
  const store: string[] = [];
  let firstBrokenLink: VerifyReport['firstBrokenLink'] = null;
  let checked = 0;
  let purged = 0;
  const attempt = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      store.push(`${what}: ${messageOf(error)}`);
      return undefined;
    }
  };
  // The store as a whole (schema, integrity check: a full read of the database) when every trace is verified.
  if (options.traceId === undefined) store.push(...((await attempt('store', () => options.store.selfCheck())) ?? []));
  const ledger = createPurgeLedger((await attempt('purges', () => options.store.purges())) ?? []);

  const check = async (row: StoredTrace, previousHash: string | null, extra: readonly string[] = []): Promise<void> => {
    const { json, contract } = bodyReading(row);
    const problems = [...extra, ...(row.seq < 1 ? [`chain: trace #${row.seq} has a sequence number below 1 (inserted outside the chain; the chain starts at #1)`] : []), ...chainProblems(row, previousHash)];
    const traceId = row.columns.trace_id ?? '';
    if (problems.length > 0 && firstBrokenLink === null) firstBrokenLink = { seq: row.seq, traceId };
    if (row.purged) {
      purged += 1;
      const purgedAt = (json as { purged_at?: unknown } | undefined)?.purged_at;
      if (tombstoneOf(row.columns, typeof purgedAt === 'string' ? purgedAt : '') !== row.body) problems.push('record: purged record differs from its columns');
      problems.push(...ledger.tombstone(row, purgedAt));
    } else {
      ledger.live(row);
      if (json === undefined) problems.push('record: body is not valid JSON');
      else if (!contract) problems.push(`record: not a contract trace (${TraceSchema.safeParse(json).error?.issues[0]?.message ?? 'invalid'})`);
      else {
        if (!isCanonicalOf(row.body, json, row.trace)) problems.push('record: stored body is not in canonical form');
        const columns = columnsOf(row.trace);
        for (const column of INDEXED_COLUMNS) {
          if (columns[column] !== row.columns[column]) problems.push(`record: column ${column} differs from the hashed record`);
        }
        problems.push(...(await contentProblems(row.trace, ctx)));
      }
    }
    checked += 1;
    options.onProgress?.(checked);
    if (problems.length > 0) failed.push({ traceId, seq: row.seq, problems });
  };

  if (options.traceId !== undefined) {
    const { traceId } = options;
    const row = await attempt('read', () => options.store.get(traceId));
    // A trace the auditor holds an id of and the store does not: a finding (it may have been removed), counted as checked.
    if (row === null) return { checked: 1, purged: 0, failed: [{ traceId, seq: 0, problems: ['no such trace in the store'] }], firstBrokenLink: null, store };
    if (row !== undefined) {
      const previous = row.seq > 1 ? (await attempt('read', () => options.store.scan({ afterSeq: row.seq - 2, limit: 1 })))?.[0] : undefined;
      await check(row, previous?.seq === row.seq - 1 ? previous.hash : row.seq === 1 ? GENESIS_HASH : null);
    }
  } else {
    const anchors = createAnchorCheck(options.anchors ?? []);
    let previousHash: string = GENESIS_HASH;
    let expectedSeq = 1;
    // Every row, whatever its seq: one at seq <= 0 is outside the chain and named, never skipped.
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const rows = await attempt(`read after trace #${after}`, () => options.store.scan({ afterSeq: after, limit: 500 }));
      if (rows === undefined || rows.length === 0) break;
      for (const row of rows) {
        after = row.seq;
        if (row.seq < 1) {
          await check(row, null);
          continue;
        }
        // A gap in seq means rows were deleted.
        const gap = row.seq === expectedSeq ? [] : [`chain: trace #${row.seq} follows #${expectedSeq - 1} (traces were removed)`];
        await check(row, previousHash, gap);
        store.push(...anchors.at(row));
        previousHash = row.hash;
        expectedSeq = row.seq + 1;
      }
    }
    store.push(...ledger.findings(), ...anchors.unreached(expectedSeq - 1));
  }
  return { checked, purged, failed, firstBrokenLink, store };
}
