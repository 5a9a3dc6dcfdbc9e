import type { AssistantConfig, EntityMentions } from '../domain/index.js';
import { withinOneEdit } from '../text/index.js';

const WORD = /[\p{L}\p{N}]+/gu;

/** Shorter names are not repaired: one edit from a five-letter name is too often another word. */
const MIN_REPAIRED_LENGTH = 6;

/**
 * A typo of a name word: one edit apart, the name word long enough, and the first letter right
 * (people rarely mistype it; "yellow" is not "Pellow").
 */
const misspells = (word: string, name: string): boolean => name.length >= MIN_REPAIRED_LENGTH && word[0] === name[0] && withinOneEdit(word, name);

/** Where the words of `alias` occur in `words` in order, each exactly or (with `typos`) as a typo of it: the index of each first word. */
function* namedAt(words: readonly string[], alias: readonly string[], typos: boolean): Generator<number> {
  if (alias.length === 0) return;
  for (let start = 0; start + alias.length <= words.length; start += 1) {
    if (alias.every((name, i) => words[start + i] === name || (typos && misspells(words[start + i] ?? '', name)))) yield start;
  }
}

/** Whether the words of `alias` occur in `words` in order, each exactly or (with `typos`) as a typo of it. */
const namedIn = (words: readonly string[], alias: readonly string[], typos: boolean): boolean => !namedAt(words, alias, typos).next().done;

/**
 * Entity values a text names through an alias from assistant.yaml, per entity type. A question
 * (`typos`) may misspell a name word ("Quilon Ford", "dunmer"); policy text is read as written.
 */
export function mentionedEntities(normalized: string, assistant: AssistantConfig, options: { readonly typos?: boolean } = {}): EntityMentions {
  const words = normalized.toLowerCase().match(WORD) ?? [];
  const found: Record<string, string[]> = {};
  for (const [type, values] of Object.entries(assistant.entities)) {
    for (const [value, aliases] of Object.entries(values)) {
      const names = [value, ...aliases];
      if (names.some((alias) => namedIn(words, alias.toLowerCase().match(WORD) ?? [], options.typos === true))) {
        (found[type] ??= []).push(value);
      }
    }
  }
  return found;
}

/** Nouns a patient uses for any of a deployment's places, whatever its entity type is called. */
const PLACE_NOUNS = ['site', 'clinic', 'location', 'office', 'campus', 'center', 'centre', 'branch', 'practice'];
/** Whether an entity type names places: its name is a noun for a place (clinic, site, location, campus, ...). */
export const isPlaceType = (type: string): boolean => PLACE_NOUNS.includes(type.toLowerCase());
/** Determiners that range over every value: "all (of) your sites", "any clinic", "each location", "which locations". */
const EVERY = String.raw`(?:all|every|each|any|both|which)`;
const OWNER = String.raw`(?:of\s+)?(?:your|the|ur|y'?all(?:'s)?|you\s+guys'?|these|those)?`;
const COUNT = String.raw`(?:two|three|four|five|six|seven|eight|\d)?`;

const plural = (noun: string): string => (/(?:s|sh|ch|x)$/u.test(noun) ? `${noun}es` : `${noun}s`);

/** The quantifier pattern for an entity type, compiled once per type name (types are a deployment's few keys). */
const quantifierPatterns = new Map<string, RegExp>();
function quantifierPattern(type: string): RegExp {
  const key = type.toLowerCase();
  let pattern = quantifierPatterns.get(key);
  if (pattern === undefined) {
    const noun = (isPlaceType(key) ? PLACE_NOUNS : [key]).flatMap((n) => [plural(n), n]).join('|');
    pattern = new RegExp(String.raw`(?<![\p{L}\p{N}])${EVERY}\s+${OWNER}\s*${COUNT}\s*(?:${noun})(?![\p{L}\p{N}])`, 'u');
    quantifierPatterns.set(key, pattern);
  }
  return pattern;
}

/**
 * The entity types a question asks about every value of: a quantifier (all, every, each, any, both,
 * which) before the type's own name or, when the type names places (site, clinic, location, ...),
 * before any noun for a place, singular or plural. "are any of your clinics open on thanksgiving?"
 * and "hours at all four locations" range over every site; "the clinic" and a named site do not.
 */
export function quantifiedTypes(normalized: string, assistant: AssistantConfig): string[] {
  const text = normalized.toLowerCase();
  return Object.keys(assistant.entities).filter((type) => quantifierPattern(type).test(text));
}

/**
 * The question with every mention of a value of `types` said as "the <type>" ("is harbor clinic open next friday?" ->
 * "is the clinic open next friday?"; "at the Harbor lab" -> "at the clinic lab"), typos read as `mentionedEntities` reads
 * them. What the judge reads for a unit about no value of those types: whether a rule for every clinic holds at the one
 * named is the typed checks' to say, not the judge's (docs/support-judge.md, candidate SN).
 */
export function placeNeutral(normalized: string, assistant: AssistantConfig, types: readonly string[]): string {
  const tokens = Array.from(normalized.matchAll(WORD), (m) => ({ word: m[0].toLowerCase(), from: m.index, to: m.index + m[0].length }));
  const words = tokens.map((t) => t.word);
  const mentions = types.flatMap((type) =>
    Object.entries(assistant.entities[type] ?? {}).flatMap(([value, aliases]) =>
      [value, ...aliases].flatMap((name) => {
        const alias = name.toLowerCase().match(WORD) ?? [];
        return Array.from(namedAt(words, alias, true), (first) => ({ type, first, last: first + alias.length - 1 }));
      }),
    ),
  );
  // The longest mention wins where two overlap ("Harbor Clinic" over "Harbor"); then replaced from the end, so offsets hold.
  const kept: (typeof mentions)[number][] = [];
  for (const m of mentions.sort((a, b) => b.last - b.first - (a.last - a.first) || a.first - b.first)) {
    if (kept.every((k) => m.last < k.first || m.first > k.last)) kept.push(m);
  }
  let text = normalized;
  for (const m of kept.sort((a, b) => b.first - a.first)) {
    const said = words[m.first - 1] === 'the' ? m.type.toLowerCase() : `the ${m.type.toLowerCase()}`;
    text = `${text.slice(0, tokens[m.first]?.from)}${said}${text.slice(tokens[m.last]?.to)}`;
  }
  return text;
}

/** The display name for an entity value: its first alias, else the value. */
export function entityLabel(assistant: AssistantConfig, type: string, value: string): string {
  return assistant.entities[type]?.[value]?.[0] ?? value;
}


/** The deployment's own names (organization, every entity value and alias): words a question uses for a place, never a person. */
export function deploymentNames(assistant: AssistantConfig): string[] {
  return [assistant.organization, ...Object.values(assistant.entities).flatMap((values) => Object.entries(values).flatMap(([value, aliases]) => [value, ...aliases]))];
}

/**
 * The capitalized words of the organization's name and its appointment channel ("Brackenfall",
 * "ReedLink", "Logbook"): the deployment's own words, which patients use bare and which belong to
 * no language.
 */
export function deploymentWords(assistant: AssistantConfig): string[] {
  return [assistant.organization, assistant.appointment_channel].flatMap((text) => text.match(/(?<!\p{L})\p{Lu}\p{L}{2,}/gu) ?? []);
}
