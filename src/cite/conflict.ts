import type { LabeledPassage } from '../domain/index.js';
import { analysisTerms, detailValues } from '../text/index.js';
import { addresses, type SupportDecision } from './coverage.js';

/** How close to the best sentence a rival source's sentence must come to count as a second answer. */
const CONFLICT_MARGIN = 0.9;
/** How much of their wording two sentences must share to be statements about the same thing (Jaccard over content words). */
const SAME_CLAIM_OVERLAP = 0.5;

function overlap(a: string, b: string): number {
  const x = new Set(analysisTerms(a));
  const y = new Set(analysisTerms(b));
  const shared = [...x].filter((t) => y.has(t)).length;
  return shared / Math.max(1, x.size + y.size - shared);
}

export interface Conflict {
  readonly labels: readonly [string, string];
  readonly detail: string;
}

const scopeOf = (p: LabeledPassage): string => JSON.stringify(Object.entries(p.revision.entities).sort());

/**
 * Two sources in force, for the same clinic (or both system-wide), whose best sentences both
 * address the question, say the same thing in mostly the same words, and state the asked detail
 * with different values ("7 am to 4 pm" against "8 am to 2 pm"): the material disagrees, and
 * citing either would hide it. Different clinics differing is not a conflict (that is what
 * clarification is for); two revisions of one source never both reach here, since only the
 * revision in force is retrieved.
 */
export function findConflict(decision: SupportDecision, offered: readonly LabeledPassage[]): Conflict | null {
  if (decision.focus.details.size === 0) return null;
  const byLabel = new Map(offered.map((p) => [p.label, p]));
  const stating = decision.scored.filter((s) => addresses(s) && s.statesDetails);
  const best = stating[0];
  const bestPassage = best === undefined ? undefined : byLabel.get(best.label);
  if (best === undefined || bestPassage === undefined) return null;
  const values = (text: string): ReadonlySet<string> => new Set([...decision.focus.details].flatMap((d) => detailValues(d, text)));
  const bestValues = values(best.text);
  for (const rival of stating) {
    const passage = byLabel.get(rival.label);
    if (passage === undefined || passage.passage.sourceId === bestPassage.passage.sourceId || scopeOf(passage) !== scopeOf(bestPassage)) continue;
    if (rival.coverage < best.coverage * CONFLICT_MARGIN) break;
    const rivalValues = values(rival.text);
    if (bestValues.size > 0 && rivalValues.size > 0 && ![...rivalValues].some((v) => bestValues.has(v)) && overlap(best.text, rival.text) >= SAME_CLAIM_OVERLAP) {
      return {
        labels: [best.label, rival.label],
        detail: `${bestPassage.passage.sourceId} (${best.label}) says ${[...bestValues].join(', ')}; ${passage.passage.sourceId} (${rival.label}) says ${[...rivalValues].join(', ')}`,
      };
    }
  }
  return null;
}
