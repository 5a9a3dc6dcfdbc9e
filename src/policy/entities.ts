import type { AssistantConfig, EntityMentions } from '../domain/index.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/** Entity values a question names through an alias from assistant.yaml, per entity type. */
export function mentionedEntities(normalized: string, assistant: AssistantConfig): EntityMentions {
  const found: Record<string, string[]> = {};
  for (const [type, values] of Object.entries(assistant.entities)) {
    for (const [value, aliases] of Object.entries(values)) {
      const names = [value, ...aliases];
      if (names.some((alias) => new RegExp(`\\b${escapeRegExp(alias.toLowerCase())}\\b`, 'u').test(normalized))) {
        (found[type] ??= []).push(value);
      }
    }
  }
  return found;
}

/** The display name for an entity value: its first alias, else the value. */
export function entityLabel(assistant: AssistantConfig, type: string, value: string): string {
  return assistant.entities[type]?.[value]?.[0] ?? value;
}


/** The deployment's own names (organization, every entity value and alias): words a question uses for a place, never a person. */
export function deploymentNames(assistant: AssistantConfig): string[] {
  return [assistant.organization, ...Object.values(assistant.entities).flatMap((values) => Object.entries(values).flatMap(([value, aliases]) => [value, ...aliases]))];
}
