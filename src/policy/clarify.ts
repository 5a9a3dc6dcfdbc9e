import type { AssistantConfig, EntityMentions, EntityTags } from '../domain/index.js';
import { entityLabel } from './entities.js';

export interface Clarification {
  readonly entityType: string;
  readonly options: readonly string[];
  readonly question: string;
}

export interface ClarifyCandidate {
  readonly tags: EntityTags;
  /** How well the passage addresses the question (its best sentence's coverage). */
  readonly coverage: number;
}

/**
 * Ask one focused question when the passages that would answer come from different values of an
 * entity type the question does not name (Harbor vs Eastside), so the answer would depend on a
 * guess. Candidates are the passages that address the question; the one addressing it best must
 * itself be entity-specific: a system-wide passage on top answers for every clinic.
 */
export function clarifyQuestion(options: {
  readonly candidates: readonly ClarifyCandidate[];
  readonly mentioned: EntityMentions;
  readonly assistant: AssistantConfig;
}): Clarification | null {
  const ranked = [...options.candidates].sort((a, b) => b.coverage - a.coverage);
  const top = ranked[0];
  if (top === undefined) return null;
  for (const type of Object.keys(options.assistant.entities)) {
    if ((options.mentioned[type]?.length ?? 0) > 0 || top.tags[type] === undefined) continue;
    const all = [...new Set(ranked.map((c) => c.tags[type]).filter((v): v is string => v !== undefined))];
    if (all.length < 2) continue;
    const labels = all.map((value) => entityLabel(options.assistant, type, value));
    const list = labels.length === 2 ? labels.join(' or ') : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1) ?? ''}`;
    return { entityType: type, options: all, question: `Which ${type} do you mean: ${list}?` };
  }
  return null;
}
