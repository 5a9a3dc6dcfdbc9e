/**
 * The passages the generator is offered (the context budget): at most k, best-retrieved first, each
 * holding a unit the judge found answering; below the k best-retrieved, a unit must answer at
 * `beyondKThreshold` (the judge's errors there are mostly text on the topic that does not answer).
 * A passage the answer must quote (`mustOffer`: the row that answers a question about every site)
 * is offered wherever it ranked, in place of the last when k are offered. Only offered passages may
 * be cited.
 */
export function offeredPassages<P extends { readonly label: string }>(options: {
  readonly labeled: readonly P[];
  /** Labels of the passages holding an answering unit. */
  readonly answering: ReadonlySet<string>;
  /** The judge's best score per passage label. */
  readonly best: ReadonlyMap<string, number>;
  readonly k: number;
  readonly beyondKThreshold: number;
  readonly mustOffer: string | null;
}): P[] {
  const { labeled, answering, best, k, beyondKThreshold, mustOffer } = options;
  const withinK = labeled.filter((p, rank) => answering.has(p.label) && (rank < k || (best.get(p.label) ?? 0) >= beyondKThreshold)).slice(0, k);
  if (mustOffer === null || withinK.some((p) => p.label === mustOffer)) return withinK;
  return [...withinK.slice(0, k - 1), ...labeled.filter((p) => p.label === mustOffer)];
}
