import type { IsoDate, RevisionId, Role, SourceId } from './ids.js';
import type { RevisionMeta } from './policy.js';

export interface InForceQuery {
  readonly role: Role;
  readonly asOf: IsoDate;
  /** Revisions present in the repository's latest committed snapshot; the rest are history only. */
  readonly present: ReadonlySet<RevisionId>;
}

/**
 * Contract section 1: per source, the approved revision with the latest effective_date <= as_of
 * whose audience contains the role. Only revisions still present in the repository compete, so a
 * removed file withdraws its source. Ties on effective_date go to the revision ingested last.
 */
export function selectInForce(
  revisions: Iterable<RevisionMeta>,
  query: InForceQuery,
): ReadonlyMap<SourceId, RevisionMeta> {
  const chosen = new Map<SourceId, RevisionMeta>();
  for (const rev of revisions) {
    if (rev.status !== 'approved') continue;
    if (!query.present.has(rev.revision)) continue;
    if (rev.effectiveDate > query.asOf) continue;
    if (!rev.audience.includes(query.role)) continue;
    const current = chosen.get(rev.sourceId);
    if (
      current === undefined ||
      rev.effectiveDate > current.effectiveDate ||
      (rev.effectiveDate === current.effectiveDate && rev.ingestSeq > current.ingestSeq)
    ) {
      chosen.set(rev.sourceId, rev);
    }
  }
  return chosen;
}

/** A revision past its review_by date is stale: reported, still usable. */
export function isStale(rev: Pick<RevisionMeta, 'reviewBy'>, today: IsoDate): boolean {
  return rev.reviewBy !== null && rev.reviewBy < today;
}
