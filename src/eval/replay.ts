import type { Trace } from '../domain/index.js';
import type { Assistant } from '../pipeline/index.js';
import type { TraceStore } from '../trace/index.js';

export interface ReplayDifference {
  readonly traceId: string;
  readonly query: string;
  readonly changes: readonly string[];
}

export interface ReplayReport {
  readonly replayed: number;
  readonly unchanged: number;
  readonly retrievalChanged: number;
  readonly outcomeChanged: number;
  readonly citationsChanged: number;
  /** Purged traces have no question left to replay. */
  readonly purged: number;
  readonly differences: readonly ReplayDifference[];
}

const retrievedKeys = (t: Trace): string[] => t.retrieved.map((r) => `${r.source_id}@${r.revision}`);
const citedKeys = (t: Trace): string[] => [...new Set(t.citations.map((c) => `${c.source_id}@${c.revision}`))].sort();
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What changed between a stored trace and its replay: retrieved revisions, outcome, cited revisions, the retriever
 * (its id names the search arithmetic), the support judge's model (its manifest, which holds its threshold), the
 * bar below the k best-retrieved, the injection detector (its manifest holds both its thresholds), and the scope
 * classifiers (the first, and the second that can only add an urgent routing: absent before session 26, and the kinds it may add).
 */
export function compareTraces(before: Trace, after: Trace): string[] {
  const changes: string[] = [];
  if (!sameList(retrievedKeys(before), retrievedKeys(after))) changes.push('retrieved');
  if (before.outcome !== after.outcome || before.reason !== after.reason) {
    changes.push(`outcome ${before.outcome}${before.reason ? `/${before.reason}` : ''} -> ${after.outcome}${after.reason ? `/${after.reason}` : ''}`);
  }
  if (!sameList(citedKeys(before), citedKeys(after))) changes.push('cited');
  // A trace made before a retriever change (LanceDB's BM25 until session 20) is replayed under today's.
  if (before.config.retriever !== after.config.retriever) changes.push(`retriever ${before.config.retriever} -> ${after.config.retriever}`);
  // A judged trace's support decision names its judge and the injection detector beside it.
  const judgedOf = (t: Trace) => (t.support_decision !== null && t.support_decision !== undefined && 'judge' in t.support_decision ? t.support_decision : undefined);
  const [decisionBefore, decisionAfter] = [judgedOf(before), judgedOf(after)];
  if (decisionBefore !== undefined && decisionAfter !== undefined) {
    const [judgeBefore, judgeAfter] = [decisionBefore.judge, decisionAfter.judge];
    if (judgeBefore.sha256 !== judgeAfter.sha256) changes.push(`support judge ${judgeBefore.sha256.slice(0, 12)} -> ${judgeAfter.sha256.slice(0, 12)}`);
    const [barBefore, barAfter] = [judgeBefore.threshold_beyond_k, judgeAfter.threshold_beyond_k];
    if (barBefore !== undefined && barAfter !== undefined && barBefore !== barAfter) changes.push(`judge bar below the k best-retrieved ${barBefore} -> ${barAfter}`);
    const [detectorBefore, detectorAfter] = [decisionBefore.injection, decisionAfter.injection];
    if (detectorBefore !== undefined && detectorAfter !== undefined && detectorBefore.sha256 !== detectorAfter.sha256) {
      changes.push(`injection detector ${detectorBefore.sha256.slice(0, 12)} -> ${detectorAfter.sha256.slice(0, 12)}`);
    }
  }
  const [scopeBefore, scopeAfter] = [before.scope_decision, after.scope_decision];
  if (scopeBefore !== undefined && scopeAfter !== undefined) {
    if (scopeBefore.sha256 !== scopeAfter.sha256) changes.push(`scope classifier ${scopeBefore.sha256.slice(0, 12)} -> ${scopeAfter.sha256.slice(0, 12)}`);
    const second = (d: typeof scopeBefore): string => (d.second === undefined ? 'none' : `${d.second.sha256.slice(0, 12)} (adds ${d.second.adds.join(', ')})`);
    if (second(scopeBefore) !== second(scopeAfter)) changes.push(`second scope classifier ${second(scopeBefore)} -> ${second(scopeAfter)}`);
  }
  return changes;
}

/**
 * Re-run stored questions (same role, same as_of) through an assistant built on the current index
 * and configuration. The replaying assistant should persist into a scratch store, so a replay never
 * adds to the audit record it reads.
 */
export async function replayTraces(options: {
  readonly store: TraceStore;
  readonly assistant: Assistant;
  readonly limit?: number;
  readonly onProgress?: (done: number) => void;
}): Promise<ReplayReport> {
  const differences: ReplayDifference[] = [];
  let replayed = 0;
  let retrievalChanged = 0;
  let outcomeChanged = 0;
  let citationsChanged = 0;
  let purged = 0;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  for (let after = 0; replayed < limit; ) {
    const rows = await options.store.scan({ afterSeq: after, limit: 200 });
    if (rows.length === 0) break;
    for (const row of rows) {
      if (replayed >= limit) break;
      after = row.seq;
      if (row.purged) {
        purged += 1;
        continue;
      }
      const before = row.trace;
      const again = await options.assistant.ask({ question: before.query, role: before.role, asOf: before.as_of });
      const changes = compareTraces(before, again);
      replayed += 1;
      options.onProgress?.(replayed);
      if (changes.includes('retrieved')) retrievalChanged += 1;
      if (changes.some((c) => c.startsWith('outcome'))) outcomeChanged += 1;
      if (changes.includes('cited')) citationsChanged += 1;
      if (changes.length > 0) differences.push({ traceId: before.trace_id, query: before.query, changes });
    }
  }
  return { replayed, unchanged: replayed - differences.length, retrievalChanged, outcomeChanged, citationsChanged, purged, differences };
}
