import type { AssistantConfig, EntityMentions, EntityTags } from '../domain/index.js';
import { entityLabel } from './entities.js';

export interface Clarification {
  readonly entityType: string;
  readonly options: readonly string[];
  readonly question: string;
}

/**
 * Ask one focused question when the best passages come from different values of an entity type
 * the question does not name (Harbor vs Eastside), so the answer would depend on a guess.
 * Only the leading candidates count, and only when the best one is itself entity-specific:
 * a system-wide passage on top answers for every clinic.
 */
export function clarifyQuestion(options: {
  readonly candidates: readonly EntityTags[];
  readonly mentioned: EntityMentions;
  readonly assistant: AssistantConfig;
  /** How many leading candidates decide. */
  readonly window?: number;
}): Clarification | null {
  const leading = options.candidates.slice(0, options.window ?? 3);
  const top = leading[0];
  if (top === undefined) return null;
  for (const type of Object.keys(options.assistant.entities)) {
    if ((options.mentioned[type]?.length ?? 0) > 0 || top[type] === undefined) continue;
    const values = [...new Set(leading.map((tags) => tags[type]).filter((v): v is string => v !== undefined))];
    if (values.length < 2) continue;
    const all = [...new Set(options.candidates.map((tags) => tags[type]).filter((v): v is string => v !== undefined))];
    const labels = all.map((value) => entityLabel(options.assistant, type, value));
    const list = labels.length === 2 ? labels.join(' or ') : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1) ?? ''}`;
    return { entityType: type, options: all, question: `Which ${type} do you mean: ${list}?` };
  }
  return null;
}
