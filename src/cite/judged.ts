import { boundedMemo, type AssistantConfig, type EntityMentions, type LabeledPassage } from '../domain/index.js';
import type { SupportJudge } from '../judge/index.js';
import { entityLabel, mentionedEntities, shippedInjectionDetector, type InjectionDetector } from '../policy/index.js';
import { contentTerms, withinOneEdit } from '../text/index.js';
import { judgeText, passageUnits, type Unit } from './units.js';

/** A unit of a candidate passage and what the judge made of it. */
export interface JudgedUnit extends Unit {
  readonly label: string;
  /** Rank of its passage among the candidates (0 = best retrieved). */
  readonly rank: number;
  /** Entity values (sites, services, ...) the unit names, under its title and headings, or its revision is tagged with. */
  readonly named: EntityMentions;
  /** Why the unit cannot answer whatever the judge says (about another site than the one asked, or a revision not in force for the period asked); not judged then. */
  readonly excluded: string | null;
  /** P(answers) from the judge, the higher of its readings; null when the unit was not judged (excluded, or beyond the judge's budget). */
  readonly score: number | null;
  /** P(answers) read with the question's places said neutrally (candidate SN), for a unit read so; else null. */
  readonly neutralScore: number | null;
}

/** The support decision over the candidate passages; its figures go into the trace. */
export interface SupportDecision {
  readonly judge: { readonly model: string; readonly sha256: string; readonly threshold: number };
  /** Every unit of the candidate passages, by score: answering ones first (the better-retrieved passage on a tie), unjudged last in reading order. */
  readonly units: readonly JudgedUnit[];
  /** Labels of passages holding a unit that answers the question. */
  readonly addressing: ReadonlySet<string>;
  /** The question with its places said neutrally, when some unit was read with it (candidate SN); else null. */
  readonly neutralQuestion: string | null;
}

/**
 * A second reading for units about no value of the place types a question names (candidate SN): the question with those
 * places said as "the <type>" (`placeNeutral`), and which units to read with it once the first reading is known.
 */
export interface NeutralReading {
  readonly question: string;
  readonly types: readonly string[];
  /** Given the first reading (every unit, and whether it answers), which units to read again; null: none. */
  readonly select: (units: readonly JudgedUnit[], answering: (unit: JudgedUnit) => boolean) => ((unit: JudgedUnit) => boolean) | null;
}

/** A unit answers when the judge scored it at or above its calibrated threshold; a score is never proof of more. */
export const answers = (decision: Pick<SupportDecision, 'judge'>, unit: JudgedUnit): boolean =>
  unit.excluded === null && unit.score !== null && unit.score >= decision.judge.threshold;

/** The values a unit names or is tagged with, per entity type. */
function namedBy(text: string, tags: LabeledPassage['revision']['entities'], assistant: AssistantConfig): EntityMentions {
  const named: Record<string, string[]> = Object.fromEntries(Object.entries(mentionedEntities(text.toLowerCase(), assistant)).map(([t, v]) => [t, [...v]]));
  for (const [type, value] of Object.entries(tags)) if (!(named[type] ??= []).includes(value)) named[type].push(value);
  return named;
}

/**
 * A hard check that needs no model: a unit about another value of an entity type the question
 * names (Eastside's parking, asked about Harbor's) does not answer it, however alike they read.
 */
function exclusion(named: EntityMentions, asked: EntityMentions, assistant: AssistantConfig): string | null {
  for (const [type, values] of Object.entries(asked)) {
    const about = named[type] ?? [];
    if (values.length > 0 && about.length > 0 && !about.some((v) => values.includes(v))) {
      const labels = (vs: readonly string[]): string => vs.map((v) => entityLabel(assistant, type, v)).join(', ');
      return `about ${type} ${labels(about)}; asked about ${labels(values)}`;
    }
  }
  return null;
}

/** Whether a unit names (or is tagged with) no value of any of `types`: a rule for every site, as far as those types go. */
export const namesNone = (named: EntityMentions, types: readonly string[]): boolean => types.every((t) => (named[t] ?? []).length === 0);

/** A unit as the judge reads it, with what does not depend on the question: its words and the entity values it names. */
interface DrawnUnit {
  readonly unit: Unit;
  /** The judge's input: the unit under its page title and headings. */
  readonly text: string;
  readonly terms: ReadonlySet<string>;
  readonly named: EntityMentions;
  /** The injection detector's score of the unit's own text. */
  readonly addressed: number;
}

/**
 * Passages come back question after question: their units are drawn once (parsing the Markdown tree
 * and matching entity names are most of the cost), per assistant configuration and injection
 * detector, by content-addressed chunk id.
 */
const drawnCache = new WeakMap<AssistantConfig, (key: string, compute: () => readonly DrawnUnit[]) => readonly DrawnUnit[]>();

function drawnUnits(p: LabeledPassage, assistant: AssistantConfig, injection: InjectionDetector): readonly DrawnUnit[] {
  let drawn = drawnCache.get(assistant);
  if (drawn === undefined) drawnCache.set(assistant, (drawn = boundedMemo<readonly DrawnUnit[]>(20_000)));
  return drawn(`${injection.sha256}:${p.passage.chunkId}`, () =>
    passageUnits(p.passage).map((unit) => {
      const text = judgeText(p.revision.title, p.passage.headings, unit);
      return { unit, text, terms: new Set(contentTerms(text)), named: namedBy(text, p.revision.entities, assistant), addressed: injection.score(unit.text) };
    }),
  );
}

/**
 * A unit the injection detector reads as addressed to a machine reader at its answer threshold (below
 * the threshold at which ingest flags it and the page leaves it out) stays on the page but never answers.
 */
const addressedExclusion = (score: number, injection: InjectionDetector): string | null =>
  score >= injection.answerThreshold ? `reads as addressed to a machine reader (${injection.modelId} ${score.toFixed(2)} >= ${injection.answerThreshold})` : null;

/**
 * Which units the judge reads when the candidates hold more than it can read in budget: those
 * sharing most of the question's words (stemmed; a typo counts), then the better-ranked passage.
 * A paraphrase that shares no word still reaches the judge when its passage has few units.
 */
function preselect(question: string, candidates: readonly { readonly terms: ReadonlySet<string>; readonly rank: number }[], max: number): ReadonlySet<number> {
  if (candidates.length <= max) return new Set(candidates.map((_, i) => i));
  const asked = [...new Set(contentTerms(question))];
  // Each asked word's typo neighbours among all the candidates' words, found once rather than per unit.
  const vocabulary = [...new Set(candidates.flatMap(({ terms }) => [...terms]))];
  const near = asked.map((t) => (t.length >= 4 ? vocabulary.filter((u) => withinOneEdit(t, u)) : [t]));
  const overlap = candidates.map(({ terms }) => near.filter((us) => us.some((u) => terms.has(u))).length);
  const order = candidates.map((_, i) => i).sort((a, b) => (overlap[b] ?? 0) - (overlap[a] ?? 0) || (candidates[a]?.rank ?? 0) - (candidates[b]?.rank ?? 0) || a - b);
  return new Set(order.slice(0, max));
}

/**
 * A unit with what judging it found, built whole: on Node 20 `{ ...unit, label, rank, … }` costs about a microsecond
 * per field added (`npx tsx bench/object-spread.ts`), and every unit of every candidate passage gets one.
 */
function judgedUnit(unit: Unit, found: Omit<JudgedUnit, keyof Unit>): JudgedUnit {
  const { kind, text, start, end, cells } = unit;
  const { label, rank, named, excluded, score, neutralScore } = found;
  return cells === undefined
    ? { kind, text, start, end, label, rank, named, excluded, score, neutralScore }
    : { kind, text, start, end, cells, label, rank, named, excluded, score, neutralScore };
}

/**
 * Ask the judge which units of the candidate passages answer the question: each unit read under
 * its page title and headings (as the judge was trained), at most `maxUnits` of them per question,
 * none about another site (or other entity) than the question names.
 */
export async function judgeSupport(options: {
  readonly judge: SupportJudge;
  /** The detector whose flags kept text out of the units; its answer threshold keeps more out of answers (default: the shipped one). */
  readonly injection?: InjectionDetector;
  readonly question: string;
  readonly passages: readonly LabeledPassage[];
  readonly maxUnits: number;
  readonly assistant: AssistantConfig;
  /** Entity values the question names. */
  readonly mentioned: EntityMentions;
  /** Why a whole passage cannot answer (its revision is not in force for the period asked), or null; default: none. */
  readonly passageExclusion?: (passage: LabeledPassage) => string | null;
  /**
   * Why a unit cannot answer, from itself (it names no person and the question asks about one; a row about another day),
   * or null; default: none. `text` is the unit as the judge reads it, under its page title and headings.
   */
  readonly unitExclusion?: (unit: Unit, text: string) => string | null;
  /** A second reading with the question's places said neutrally, for the units about none of them it selects; default: none. */
  readonly neutral?: NeutralReading | undefined;
}): Promise<SupportDecision> {
  const { judge, question, assistant } = options;
  const injection = options.injection ?? shippedInjectionDetector();
  const candidates = options.passages.flatMap((p, rank) => {
    const whole = options.passageExclusion?.(p) ?? null;
    return drawnUnits(p, assistant, injection).map((d) => ({
      unit: d.unit,
      text: d.text,
      terms: d.terms,
      named: d.named,
      label: p.label,
      rank,
      excluded: whole ?? addressedExclusion(d.addressed, injection) ?? exclusion(d.named, options.mentioned, assistant) ?? options.unitExclusion?.(d.unit, d.text) ?? null,
    }));
  });
  const eligible = candidates.flatMap((c, i) => (c.excluded === null ? [i] : []));
  const chosen = preselect(question, eligible.map((i) => candidates[i] as (typeof candidates)[number]), options.maxUnits);
  const judgedIndexes = eligible.filter((_, j) => chosen.has(j));
  const scores = await judge.score(question, judgedIndexes.map((i) => candidates[i]?.text ?? ''));
  const scoreOf = new Map(judgedIndexes.map((i, j) => [i, scores[j] ?? 0]));
  const decision = { judge: { model: judge.modelId, sha256: judge.sha256, threshold: judge.threshold } };
  const unitsWith = (neutralOf: ReadonlyMap<number, number>): JudgedUnit[] =>
    candidates.map((c, i) => {
      const first = scoreOf.get(i) ?? null;
      const neutralScore = neutralOf.get(i) ?? null;
      const score = first === null || neutralScore === null ? first : Math.max(first, neutralScore);
      return judgedUnit(c.unit, { label: c.label, rank: c.rank, named: c.named, excluded: c.excluded, score, neutralScore });
    });
  let units = unitsWith(new Map());
  const neutral = options.neutral;
  const select = neutral?.select(units, (u) => answers(decision, u)) ?? null;
  const again = neutral === undefined || select === null ? [] : judgedIndexes.filter((i) => namesNone(candidates[i]?.named ?? {}, neutral.types) && select(units[i] as JudgedUnit));
  if (neutral !== undefined && again.length > 0) {
    const neutralScores = await judge.score(neutral.question, again.map((i) => candidates[i]?.text ?? ''));
    units = unitsWith(new Map(again.map((i, j) => [i, neutralScores[j] ?? 0])));
  }
  // The judge decides which units answer, and the answering unit it scores highest comes first (the
  // cascade's averaged logits rank answers: docs/support-judge.md, candidate O'; one judge's scores,
  // saturated near 1, did not), the better-retrieved passage on a tie; then the rest by score.
  const passes = (u: JudgedUnit): number => Number(answers(decision, u));
  const ordered = units
    .map((u, i) => ({ u, i }))
    .sort((a, b) => passes(b.u) - passes(a.u) || (b.u.score ?? -1) - (a.u.score ?? -1) || a.u.rank - b.u.rank || a.i - b.i)
    .map(({ u }) => u);
  return { ...decision, units: ordered, addressing: new Set(ordered.filter((u) => answers(decision, u)).map((u) => u.label)), neutralQuestion: again.length > 0 ? (neutral?.question ?? null) : null };
}
