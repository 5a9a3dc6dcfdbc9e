import type { RowCell } from '../cite/index.js';
import type { AssistantConfig, EntityMentions } from '../domain/index.js';
import { entityLabel, mentionedEntities } from './entities.js';

/** Why the answer would depend on a guess (the trace's detail names it, with the passages that show it). */
export type ClarifyGround =
  | 'sites differ' // answering texts about two or more values
  | 'a row per site' // a table row with a column per value that says different things
  | 'an override' // a system-wide rule beside one value's own rule
  | 'one site alone'; // one value's own rule, and nothing for the others

export interface Clarification {
  readonly entityType: string;
  readonly options: readonly string[];
  readonly question: string;
  readonly ground: ClarifyGround;
  /** Labels of the answering passages that show it, best first: those about a value (and, for an override, the system-wide ones). */
  readonly evidence: readonly string[];
}

export interface ClarifyCandidate {
  /** The passage label of the answering unit ("S3"). */
  readonly label: string;
  /** Entity values the answering text names or its revision is tagged with, per type. */
  readonly named: EntityMentions;
  /** A table row's cells under their headers (null for any other unit): a column per site may state the rule per site. */
  readonly row: readonly RowCell[] | null;
  /** How surely the passage answers the question (the judge's best score among its units). */
  readonly score: number;
}

const sameValue = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * A table row that says the same thing in two or more columns headed by one value of an entity
 * type each ("Closed" under "Harbor Clinic" and under "Eastside Clinic"): it answers for every
 * value it names. Any other row naming several values states the rule per value (a column each, or
 * a row of a per-site table that mentions another site in passing).
 */
function sameUnderEvery(row: ClarifyCandidate['row'], type: string, assistant: AssistantConfig): boolean {
  const columns = valueColumns(row, type, assistant).map(sameValue);
  return columns.length > 1 && new Set(columns).size === 1;
}

/** What a table row says under each column headed by one value of an entity type ("Harbor Clinic": "8 am–noon"). */
const valueColumns = (row: ClarifyCandidate['row'], type: string, assistant: AssistantConfig): string[] =>
  (row ?? []).filter((cell) => mentionedEntities(cell.header, assistant)[type]?.length === 1).map((cell) => cell.value);

/** Candidates best first (a stable sort: equal scores keep their order). */
const byScore = <C extends ClarifyCandidate>(candidates: readonly C[]): C[] => [...candidates].sort((a, b) => b.score - a.score);

export interface ClarifyOptions<C extends ClarifyCandidate = ClarifyCandidate> {
  readonly candidates: readonly C[];
  readonly mentioned: EntityMentions;
  /** Entity types the question asks about every value of ("any of your clinics"): a table row with a column per value answers it whole. */
  readonly every?: readonly string[];
  readonly assistant: AssistantConfig;
}

/** Whether a candidate answers for every value of a type the question ranges over: a row with a column per value. */
const answersEvery = (options: ClarifyOptions, candidate: ClarifyCandidate, type: string): boolean =>
  options.every?.includes(type) === true && (options.mentioned[type]?.length ?? 0) === 0 && valueColumns(candidate.row, type, options.assistant).length > 1;

/**
 * The best answering unit when it answers a question about every site whole (a row with a column
 * per site): the answer must quote it, wherever retrieval ranked its passage.
 */
export function everyValueRow(options: ClarifyOptions): ClarifyCandidate | null {
  const top = byScore(options.candidates)[0];
  return top !== undefined && Object.keys(options.assistant.entities).some((type) => answersEvery(options, top, type)) ? top : null;
}

/**
 * Ask one focused question when the texts that would answer are about different values of an
 * entity type the question does not name, so the answer would depend on a guess: two tagged pages
 * or two rows of one table (Harbor vs Eastside), a table row with a column per value that says
 * different things per value, or a
 * system-wide rule beside a rule for one site (an override: the system rule does not hold there),
 * or one site's rule alone. Candidates are the units that answer the question. A system-wide rule
 * alone, or a sentence that names every site, answers for all of them, and so does a table row with a
 * column per site for a question about every site ("are any of your clinics open on Christmas Eve?").
 */
export function clarifyQuestion(options: ClarifyOptions): Clarification | null {
  const ranked = byScore(options.candidates);
  const top = ranked[0];
  if (top === undefined) return null;
  for (const [type, values] of Object.entries(options.assistant.entities)) {
    if ((options.mentioned[type]?.length ?? 0) > 0) continue;
    const about = top.named[type]?.length ?? 0;
    // A question about every value, best answered by a row with a column per value: the row is the answer for all of them.
    if (answersEvery(options, top, type)) continue;
    const override = ranked.some((c) => (c.named[type]?.length ?? 0) === 0) && ranked.some((c) => c.named[type]?.length === 1);
    if (!(about === 1 || (about > 1 && top.row !== null && !sameUnderEvery(top.row, type, options.assistant)) || override)) continue;
    // Offer the values whose own texts answer; when only the best one's does, every value: the
    // others may have rules of their own that nothing retrieved states, so one site's rule is not
    // the answer for a question that names none.
    const answering = [...new Set(ranked.flatMap((c) => c.named[type] ?? []))];
    const all = override || answering.length < 2 ? Object.keys(values) : answering;
    if (all.length < 2) continue;
    const labels = all.map((value) => entityLabel(options.assistant, type, value));
    const list = labels.length === 2 ? labels.join(' or ') : `${labels.slice(0, -1).join(', ')} or ${labels.at(-1) ?? ''}`;
    const ground: ClarifyGround = override ? 'an override' : about > 1 ? 'a row per site' : answering.length > 1 ? 'sites differ' : 'one site alone';
    const evidence = [...new Set(ranked.filter((c) => override || (c.named[type]?.length ?? 0) > 0).map((c) => c.label))];
    return { entityType: type, options: all, question: `Which ${type} do you mean: ${list}?`, ground, evidence };
  }
  return null;
}

/** An answer to a question about every value of a type, quoted value by value. */
export interface EachValueAnswer<C extends ClarifyCandidate> {
  readonly entityType: string;
  /** The units to quote, in order: the system-wide rule (value null), then one unit per value that has its own. */
  readonly quoted: readonly { readonly candidate: C; readonly value: string | null }[];
}

/**
 * A question about every value of a type ("which of your clinics have free parking?") that the
 * clarifying question would ask about that type is answered value by value instead: the best
 * answering unit that names no value (the system-wide rule), then, in the deployment's order, the
 * best that names each value alone. Null when the clarification is about another type, the question
 * does not range over its type, or no unit names one value alone (only rows naming several answer):
 * then the clarifying question stands.
 */
export function eachValueAnswer<C extends ClarifyCandidate>(options: ClarifyOptions<C>, clarification: Clarification): EachValueAnswer<C> | null {
  const type = clarification.entityType;
  if (options.every?.includes(type) !== true) return null;
  const ranked = byScore(options.candidates);
  const systemWide = ranked.find((c) => (c.named[type]?.length ?? 0) === 0);
  const perValue = Object.keys(options.assistant.entities[type] ?? {}).flatMap((value) => {
    const own = ranked.find((c) => c.named[type]?.length === 1 && c.named[type][0] === value);
    return own === undefined ? [] : [{ candidate: own, value }];
  });
  if (perValue.length === 0) return null;
  return { entityType: type, quoted: [...(systemWide === undefined ? [] : [{ candidate: systemWide, value: null }]), ...perValue] };
}

/**
 * What leads a unit quoted for one value among several, so the patient reads whose rule it is: the
 * innermost of its page's title and headings that names the value ("Tanner Street Clinic" above a
 * holiday table), else the title. Titles and headings are part of the cited text, so the lead is
 * supported by the passage it quotes.
 */
export function quoteLead(context: { readonly title: string; readonly headings: readonly string[] }, type: string, value: string | null, assistant: AssistantConfig): string {
  if (value === null) return context.title;
  return [...context.headings].reverse().find((h) => mentionedEntities(h, assistant)[type]?.includes(value) === true) ?? context.title;
}
