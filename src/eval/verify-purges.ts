import type { PurgeRecord, StoredTrace } from '../trace/index.js';

/**
 * Purges cross-checked against the purge records. A tombstone must name the time of a recorded
 * purge and predate its cutoff; each purge must account for exactly the tombstones that name it;
 * and a purge removes every older trace, never a chosen few: a trace created before a purge's
 * cutoff (and before the purge itself) that the purge left live, while it tombstoned a later
 * one, is a forged purge. A tombstone written behind the triggers, a purge record edited to cover
 * more, or a record added to make one trace disappear through the purge path, is a finding.
 * What this cannot tell from a real retention purge is a forged one that removes every trace
 * before its cutoff: with checkpoints, `verify --public-key` asks each purge for the checkpoint
 * signed when it was made (verify-checkpoints.ts).
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

export function createPurgeLedger(records: readonly PurgeRecord[]): PurgeLedger {
  const byTime = new Map(records.map((r) => [r.purgedAt, r]));
  const count = new Map<number, number>();
  const lastTombstone = new Map<number, number>();
  const seen: Seen[] = [];
  return {
    tombstone(row, purgedAt) {
      const record = typeof purgedAt === 'string' ? byTime.get(purgedAt) : undefined;
      const createdAt = row.columns.created_at ?? '';
      seen.push({ seq: row.seq, createdAt, purge: record?.id ?? null });
      if (record === undefined) return [`purge: the record says it was purged at ${String(purgedAt)}, but no purge was recorded then (forged purge)`];
      count.set(record.id, (count.get(record.id) ?? 0) + 1);
      lastTombstone.set(record.id, Math.max(lastTombstone.get(record.id) ?? 0, row.seq));
      return createdAt < record.before ? [] : [`purge: created ${createdAt}, not before the cutoff ${record.before} of the purge at ${record.purgedAt} (forged purge)`];
    },
    live(row) {
      seen.push({ seq: row.seq, createdAt: row.columns.created_at ?? '', purge: null });
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
      return [...counts, ...skipped];
    },
  };
}
