import { tombstonesDigest, type PurgeRecord, type StoredTrace } from '../trace/index.js';

/**
 * Purges cross-checked against the purge records. A tombstone must name the time of a recorded
 * purge and predate its cutoff; each purge must account for exactly the tombstones that name it;
 * and a purge removes every older trace, never a chosen few: a trace created before a purge's
 * cutoff (and before the purge itself) that the purge left live, while it tombstoned a later
 * one, is a forged purge. A tombstone written behind the triggers, a purge record edited to cover
 * more, or a record added to make one trace disappear through the purge path, is a finding.
 * A purge record commits to the tombstones it wrote (their digest, in seq order), so a
 * tombstone's retained fields (role, outcome, created_at, ...) changed afterwards are a finding.
 * A tombstone's created_at is no longer covered by its trace's digest, so backdating one trace
 * would let a forged purge choose it: the chain is appended in time order, so a tombstone created
 * more than CLOCK_SLACK_MS before a trace earlier in the chain is named.
 * What this cannot tell from a real retention purge is a forged one that removes every trace
 * before its cutoff (or one whose record and tombstone digest were rewritten together): with
 * checkpoints, `verify --public-key` asks each purge for the checkpoint signed when it was made
 * and compares the purge records, digests included, with those signed (verify-checkpoints.ts).
 */
export interface PurgeLedger {
  /** A tombstone: which recorded purge it names, and what is wrong with it. */
  readonly tombstone: (row: StoredTrace, purgedAt: unknown) => string[];
  /** A live trace (its payload still stored). */
  readonly live: (row: StoredTrace) => void;
  /** What the walk as a whole shows: purge counts that do not match, traces a purge passed over. */
  readonly findings: () => string[];
}

interface Seen {
  readonly seq: number;
  readonly createdAt: string;
  /** The purge that tombstoned it, or null while it is live. */
  readonly purge: number | null;
}

const earlier = (a: string, b: string): string => (a < b ? a : b);

/**
 * How far created_at may run backwards along the chain: a trace is stamped when its request
 * starts and appended when it ends, by instances whose clocks may differ a little.
 */
export const CLOCK_SLACK_MS = 60 * 60 * 1000;

export function createPurgeLedger(records: readonly PurgeRecord[]): PurgeLedger {
  const byTime = new Map(records.map((r) => [r.purgedAt, r]));
  const count = new Map<number, number>();
  const lastTombstone = new Map<number, number>();
  const seen: Seen[] = [];
  const written = new Map<number, string[]>();
  /** The latest created_at earlier in the chain, and whose. */
  let latest: { readonly seq: number; readonly createdAt: string; readonly at: number } | null = null;
  const see = (row: StoredTrace, purge: number | null): Seen => {
    const entry = { seq: row.seq, createdAt: row.columns.created_at ?? '', purge };
    seen.push(entry);
    const at = Date.parse(entry.createdAt);
    if (latest === null || at > latest.at) latest = { seq: row.seq, createdAt: entry.createdAt, at };
    return entry;
  };
  return {
    tombstone(row, purgedAt) {
      const record = typeof purgedAt === 'string' ? byTime.get(purgedAt) : undefined;
      const before = latest;
      const { createdAt } = see(row, record?.id ?? null);
      const backdated =
        before !== null && Date.parse(createdAt) < before.at - CLOCK_SLACK_MS
          ? [`purge: trace #${row.seq}, created ${createdAt}, follows trace #${before.seq} created ${before.createdAt} in the chain (traces are appended in time order: a backdated tombstone, forged purge)`]
          : [];
      if (record === undefined) return [...backdated, `purge: the record says it was purged at ${String(purgedAt)}, but no purge was recorded then (forged purge)`];
      count.set(record.id, (count.get(record.id) ?? 0) + 1);
      lastTombstone.set(record.id, Math.max(lastTombstone.get(record.id) ?? 0, row.seq));
      written.set(record.id, [...(written.get(record.id) ?? []), row.body]);
      return createdAt < record.before ? backdated : [...backdated, `purge: created ${createdAt}, not before the cutoff ${record.before} of the purge at ${record.purgedAt} (forged purge)`];
    },
    live(row) {
      see(row, null);
    },
    findings() {
      const counts = records
        .filter((r) => (count.get(r.id) ?? 0) !== r.traces)
        .map((r) => `purge #${r.id} at ${r.purgedAt} recorded ${r.traces} trace(s), but ${count.get(r.id) ?? 0} stored record(s) carry its tombstone`);
      // A trace the purge passed over: created before both its cutoff and the purge, earlier in the chain than a trace it
      // did tombstone (a trace appended while the purge ran comes after all of those), and live or purged only later.
      const skipped = seen.flatMap((t) =>
        records
          .filter((r) => (t.purge === null || t.purge > r.id) && t.createdAt < earlier(r.before, r.purgedAt) && t.seq < (lastTombstone.get(r.id) ?? 0))
          .slice(0, 1)
          .map((r) => `purge #${r.id} at ${r.purgedAt} passed over trace #${t.seq}, created ${t.createdAt} before its cutoff ${r.before}, and removed later ones (a purge removes every older trace: this one chose which; forged purge)`),
      );
      // Purges made before migration 4 recorded no digest: their tombstones are checked as above, not against one.
      const rewritten = records
        .filter((r) => r.tombstones !== undefined && (count.get(r.id) ?? 0) === r.traces && tombstonesDigest(written.get(r.id) ?? []) !== r.tombstones)
        .map((r) => `purge #${r.id} at ${r.purgedAt}: its tombstones differ from those it recorded (a purged trace's retained fields were changed)`);
      return [...counts, ...skipped, ...rewritten];
    },
  };
}
