import type { LabeledPassage } from '../domain/index.js';
import { contentTerms, statedValues } from '../text/index.js';
import { answers, type SupportDecision } from './judged.js';

/** How close to the best unit's judge score a rival source's unit must come to count as a second answer. */
const CONFLICT_MARGIN = 0.9;
/** How much of their wording two units must share to be statements about the same thing (Jaccard over content words). */
const SAME_CLAIM_OVERLAP = 0.5;

function overlap(a: string, b: string): number {
  const x = new Set(contentTerms(a));
  const y = new Set(contentTerms(b));
  const shared = [...x].filter((t) => y.has(t)).length;
  return shared / Math.max(1, x.size + y.size - shared);
}

export interface Conflict {
  readonly labels: readonly [string, string];
  readonly detail: string;
}

const scopeOf = (p: LabeledPassage): string => JSON.stringify(Object.entries(p.revision.entities).sort());

/**
 * Two sources in force, for the same clinic (or both system-wide), whose units both answer the
 * question, say the same thing in mostly the same words, and state a time, fee, phone number or
 * lead time with different values ("7 am to 4 pm" against "8 am to 2 pm"): the material
 * disagrees, and citing either would hide it. Different clinics differing is not a conflict (that
 * is what clarification is for); two revisions of one source never both reach here, since only the
 * revision in force is retrieved.
 */
export function findConflict(decision: SupportDecision, offered: readonly LabeledPassage[]): Conflict | null {
  const byLabel = new Map(offered.map((p) => [p.label, p]));
  // The answer compared with its rivals is the best-retrieved passage's (the generator may quote another).
  const answering = decision.units.filter((u) => byLabel.has(u.label) && answers(decision, u)).sort((a, b) => a.rank - b.rank || (b.score ?? 0) - (a.score ?? 0));
  const best = answering[0];
  const bestPassage = best === undefined ? undefined : byLabel.get(best.label);
  if (best === undefined || bestPassage === undefined) return null;
  const bestValues = statedValues(best.text);
  for (const rival of answering.slice(1)) {
    const passage = byLabel.get(rival.label);
    if (passage === undefined || passage.passage.sourceId === bestPassage.passage.sourceId || scopeOf(passage) !== scopeOf(bestPassage)) continue;
    if ((rival.score ?? 0) < (best.score ?? 0) * CONFLICT_MARGIN) break;
    if (overlap(best.text, rival.text) < SAME_CLAIM_OVERLAP) continue;
    const rivalValues = statedValues(rival.text);
    for (const [kind, values] of bestValues) {
      const theirs = rivalValues.get(kind) ?? [];
      if (theirs.length > 0 && !theirs.some((v) => values.includes(v))) {
        return {
          labels: [best.label, rival.label],
          detail: `${bestPassage.passage.sourceId} (${best.label}) says ${values.join(', ')}; ${passage.passage.sourceId} (${rival.label}) says ${theirs.join(', ')}`,
        };
      }
    }
  }
  return null;
}
