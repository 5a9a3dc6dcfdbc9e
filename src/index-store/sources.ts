import { isStale, type IsoDate, type RevisionMeta, type SourceId } from '../domain/index.js';
import type { PolicyIndex } from './lance-index.js';

export interface SourceRevisionView {
  readonly revision: string;
  readonly version: string | null;
  readonly status: RevisionMeta['status'];
  readonly effective_date: string;
  readonly review_by: string | null;
  readonly stale: boolean;
  readonly present: boolean;
  readonly audience: readonly string[];
  readonly path: string;
}

export interface SourceView {
  readonly source_id: string;
  /** The title of the revision in force (for patients, else staff); with none, of the newest approved one. */
  readonly title: string;
  readonly owner: string | null;
  /** No file of the source is left in the repository. */
  readonly withdrawn: boolean;
  /** Version label (or revision) in force today per role; null when none. */
  readonly in_force: { readonly patient: string | null; readonly staff: string | null };
  /** The revision in force for anyone is past its review_by date. */
  readonly stale: boolean;
  readonly revisions: readonly SourceRevisionView[];
}

/** Every source with all its revisions, newest first, as operators and auditors see them. */
export function describeSources(index: PolicyIndex, today: IsoDate): SourceView[] {
  const present = new Set(index.manifest.present);
  const patient = index.inForce({ role: 'patient', asOf: today });
  const staff = index.inForce({ role: 'staff', asOf: today });
  const bySource = new Map<SourceId, RevisionMeta[]>();
  for (const rev of index.revisions.values()) bySource.set(rev.sourceId, [...(bySource.get(rev.sourceId) ?? []), rev]);
  return [...bySource.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([sourceId, revs]) => {
      const sorted = [...revs].sort((a, b) => b.effectiveDate.localeCompare(a.effectiveDate) || b.ingestSeq - a.ingestSeq);
      const latest = sorted[0];
      const label = (r: RevisionMeta | undefined): string | null => (r === undefined ? null : (r.version ?? r.revision));
      const forPatient = patient.get(sourceId);
      const forStaff = staff.get(sourceId);
      // Named as it is in force, not as a draft or a future revision would rename it; with nothing
      // in force, as its newest approved revision, else its newest.
      const named = forPatient ?? forStaff ?? sorted.find((r) => r.status === 'approved') ?? latest;
      return {
        source_id: sourceId,
        title: named?.title ?? sourceId,
        owner: named?.owner ?? null,
        withdrawn: !revs.some((r) => present.has(r.revision)),
        in_force: { patient: label(forPatient), staff: label(forStaff) },
        stale: [forPatient, forStaff].some((r) => r !== undefined && isStale(r, today)),
        revisions: sorted.map((r) => ({
          revision: r.revision,
          version: r.version,
          status: r.status,
          effective_date: r.effectiveDate,
          review_by: r.reviewBy,
          stale: isStale(r, today),
          present: present.has(r.revision),
          audience: r.audience,
          path: r.path,
        })),
      };
    });
}
