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
 * Defence in depth: a prefiltered search runs inside LanceDB, and this checks its output, so a
 * defect in an index path (ANN, ordinals) fails closed instead of showing a passage the role may not see.
 */
function assertAllowed(rows: readonly Record<string, unknown>[], allowed: ReadonlySet<string>): void {
  for (const row of rows) {
    if (!allowed.has(String(row.revision))) {
      throw new CitetraceError('INTERNAL', `index returned passage ${String(row.chunk_id)} of revision ${String(row.revision)}, outside the in-force filter`);
    }
  }
}

export const hasField = (schema: { readonly fields: readonly { readonly name: string }[] }, name: string): boolean => schema.fields.some((f) => f.name === name);

/** The revisions one search may return, their share of all revisions, and LanceDB's prefilter for them (built when first needed). */
export interface Scope {
  readonly allowed: ReadonlySet<string>;
  readonly share: number;
  filter(): string | null;
}

/** Unfiltered hits fetched per wanted hit, divided by the allowed share of revisions. */
const OVERFETCH = 2;
/**
 * Beyond this many unfiltered hits the prefiltered search is cheaper (10k passages: an HNSW search
 * for 290 rows, re-ranked on full vectors, costs 9.4 ms CPU against 6.3 prefiltered to a clinic).
 */
export const MAX_UNFILTERED_VECTOR = 120;

/**
 * The best `limit` rows of allowed revisions, best first. LanceDB's prefilter (an IN list of
 * ~1,800 revision ordinals for a patient at 10k passages) costs more than the search itself:
 * 8-9 ms CPU per search against 2-4 ms unfiltered (bench/scale.ts). So when allowed revisions
 * are a large share, the search runs unfiltered for a few times `limit` rows and drops the rest
 * here: if at least `limit` allowed rows remain, they are exactly the allowed top `limit` (every
 * better allowed row ranks above them unfiltered too), and if the search ran out of rows, every
 * allowed match is there. Only otherwise, or for a narrow scope, does the prefiltered search run.
 */
export async function allowedTop(
  scope: Scope,
  limit: number,
  maxUnfiltered: number,
  unfiltered: (n: number) => Promise<Record<string, unknown>[]>,
  prefiltered: (filter: string) => Promise<Record<string, unknown>[]>,
): Promise<Record<string, unknown>[]> {
  const n = Math.ceil((limit * OVERFETCH) / scope.share);
  if (n <= maxUnfiltered) {
    const rows = await unfiltered(n);
    const kept = rows.filter((row) => scope.allowed.has(String(row.revision)));
    if (kept.length >= limit || rows.length < n) return kept.slice(0, limit);
  }
  const filter = scope.filter();
  if (filter === null) return [];
  const rows = await prefiltered(filter);
  assertAllowed(rows, scope.allowed);
  return rows;
}
