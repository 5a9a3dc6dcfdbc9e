import { CitetraceError, RevisionIdSchema, type RevisionId } from '../domain/index.js';
import { PASSAGE_ORDINAL } from './schema.js';

/** Revision ids are validated hex, so inlining them in a filter cannot inject SQL. */
function revisionFilter(revisions: readonly RevisionId[]): string {
  return `revision IN (${revisions.map((r) => `'${RevisionIdSchema.parse(r)}'`).join(', ')})`;
}

/**
 * The prefilter for a set of allowed revisions, or null when none of them has a passage here.
 * With ordinals (indexes written since they were added) it compares small integers, which
 * LanceDB parses and evaluates several times faster than a list of revision ids.
 */
export function allowedFilter(revisions: readonly RevisionId[], ordinalOf: ReadonlyMap<RevisionId, number> | null): string | null {
  if (revisions.length === 0) return null;
  if (ordinalOf === null) return revisionFilter(revisions);
  const ordinals: number[] = [];
  for (const revision of revisions) {
    const ordinal = ordinalOf.get(revision);
    if (ordinal !== undefined) ordinals.push(ordinal);
  }
  return ordinals.length === 0 ? null : `${PASSAGE_ORDINAL} IN (${ordinals.join(',')})`;
}

/**
 * Defence in depth: the filter runs inside LanceDB, and this checks its output, so a defect in an
 * index path (ANN, ordinals) fails closed instead of showing a passage the role may not see.
 */
export function assertAllowed(rows: readonly Record<string, unknown>[], revisions: readonly RevisionId[]): void {
  const allowed = new Set<string>(revisions);
  for (const row of rows) {
    if (!allowed.has(String(row.revision))) {
      throw new CitetraceError('INTERNAL', `index returned passage ${String(row.chunk_id)} of revision ${String(row.revision)}, outside the in-force filter`);
    }
  }
}

export const hasField = (schema: { readonly fields: readonly { readonly name: string }[] }, name: string): boolean => schema.fields.some((f) => f.name === name);
