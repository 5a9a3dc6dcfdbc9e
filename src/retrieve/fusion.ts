/**
 * Reciprocal rank fusion (Cormack, Clarke and Buettcher, "Reciprocal Rank Fusion outperforms
 * Condorcet and individual Rank Learning Methods", SIGIR 2009): score(d) = sum over rankings of
 * 1 / (k + rank(d)). Pure; ties broken by key so the order is deterministic.
 */
export interface RankedList {
  readonly name: string;
  /** Best first; `score` is the retriever's raw score, kept for the trace. */
  readonly items: readonly { readonly key: string; readonly score: number }[];
}

export interface FusedItem {
  readonly key: string;
  readonly score: number;
  readonly components: Readonly<Record<string, { readonly score: number; readonly rank: number } | null>>;
}

export const RRF_K = 60;

export function reciprocalRankFusion(lists: readonly RankedList[], k: number = RRF_K): FusedItem[] {
  const fused = new Map<string, { score: number; components: Record<string, { score: number; rank: number } | null> }>();
  const empty = (): Record<string, null> => Object.fromEntries(lists.map((l) => [l.name, null]));
  for (const list of lists) {
    const seen = new Set<string>();
    list.items.forEach((item, index) => {
      if (seen.has(item.key)) return;
      seen.add(item.key);
      const rank = index + 1;
      const entry = fused.get(item.key) ?? { score: 0, components: empty() };
      entry.score += 1 / (k + rank);
      entry.components[list.name] = { score: item.score, rank };
      fused.set(item.key, entry);
    });
  }
  return [...fused.entries()]
    .map(([key, v]) => ({ key, score: v.score, components: v.components }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
