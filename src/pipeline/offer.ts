/**
 * The passages the generator is offered (the context budget): at most k, best-retrieved first, each
 * holding a unit the judge found answering; below the k best-retrieved, a unit must answer at
 * `beyondKThreshold` (the judge's errors there are mostly text on the topic that does not answer).
 * The passages the answer must quote (`mustOffer`: the row that answers a question about every site,
 * or one answering unit per site) are offered wherever they ranked, in place of the last ones when k
 * are offered, and all of them even when they are more than k. Only offered passages may be cited;
 * they keep their retrieval order. A passage set aside whole before judging (`setAside`: every unit of it excluded, for
 * another site, another day or a revision not in force for the period asked) takes none of the k places: the next
 * best-retrieved passage moves up (candidate RF, docs/support-judge.md).
 */
export function offeredPassages<P extends { readonly label: string }>(options: {
  readonly labeled: readonly P[];
  /** Labels of the passages holding an answering unit. */
  readonly answering: ReadonlySet<string>;
  /** The judge's best score per passage label. */
  readonly best: ReadonlyMap<string, number>;
  readonly k: number;
  readonly beyondKThreshold: number;
  readonly mustOffer: readonly string[];
  /** Labels of the passages every unit of which was set aside before judging. */
  readonly setAside: ReadonlySet<string>;
}): P[] {
  const { labeled, answering, best, k, beyondKThreshold, setAside } = options;
  const must = new Set(options.mustOffer);
  const withinK = labeled.filter((p) => !setAside.has(p.label)).filter((p, rank) => answering.has(p.label) && (rank < k || (best.get(p.label) ?? 0) >= beyondKThreshold)).slice(0, k);
  const others = new Set(withinK.filter((p) => !must.has(p.label)).slice(0, Math.max(0, k - must.size)).map((p) => p.label));
  return labeled.filter((p) => must.has(p.label) || others.has(p.label));
}
