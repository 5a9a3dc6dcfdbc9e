import type { LabeledPassage } from '../domain/index.js';
import { isInstruction } from '../policy/index.js';
import { analysisTerms, channelsOf, daysNamed, passageSentences, statedDetails, type QuestionFocus, type Weekday } from '../text/index.js';

export interface ScoredSentence {
  readonly label: string;
  /** Position of the passage among those offered (0 = best ranked). */
  readonly rank: number;
  readonly position: number;
  readonly text: string;
  /** Weighted share of the question's focus terms the sentence states, 0..1. */
  readonly coverage: number;
  /**
   * What the sentence lacks to address the question: asked details (#time, #fee, ...) its passage
   * does not state, "topic" when it names none of the question's most specific topics, "channel"
   * when it is about another way of doing it (the portal, asked about the phone), "day" when it
   * is about other days of the week than the question names (weekdays, asked about a Saturday).
   */
  readonly missing: readonly string[];
  /** Whether the sentence itself states every asked detail (not only its passage). */
  readonly statesDetails: boolean;
}

/** A sentence is read under its page title and section headings: "Eastside Clinic hours" gives "hours" to every sentence below it. */
export interface SupportingText {
  readonly passage: { readonly text: string; readonly headings: readonly string[] };
  readonly revision: { readonly title: string };
}

export function contextTerms(p: SupportingText): string[] {
  return analysisTerms([p.revision.title, ...p.passage.headings].join(' '));
}

interface Statement {
  readonly text: string;
  readonly terms: ReadonlySet<string>;
  /** The ways of doing it the sentence is about: its own when it names one, else its headings' ("Phone and portal hours"). */
  readonly channels: ReadonlySet<string>;
  readonly days: ReadonlySet<Weekday>;
}

/** Parsed passages by their text and context: parsing is most of a decision's cost, and the same passages come back question after question. */
const statements = new Map<string, readonly Statement[]>();
const MAX_CACHED_PASSAGES = 20_000;

/** The answer-capable sentences of a passage, each with its terms read under the page title and headings. */
function statementsOf(p: LabeledPassage): readonly Statement[] {
  const key = [p.revision.title, ...p.passage.headings, p.passage.text].join('\u0000');
  const cached = statements.get(key);
  if (cached !== undefined) return cached;
  const context = contextTerms(p);
  const parsed = passageSentences(p.passage.text)
    .filter((text) => !isInstruction(text))
    .map((text) => {
      const own = analysisTerms(text);
      const channels = channelsOf(new Set(own));
      return {
        text,
        terms: new Set([...context, ...own, ...statedDetails(text)]),
        channels: channels.size > 0 ? channels : channelsOf(new Set(context)),
        days: daysNamed(text),
      };
    });
  if (statements.size >= MAX_CACHED_PASSAGES) statements.delete(statements.keys().next().value ?? '');
  statements.set(key, parsed);
  return parsed;
}

/** Least coverage for a sentence to count as addressing the question; one reviewed setting. */
export const MIN_COVERAGE = 0.3;

/**
 * Weight of a focus word that is neither a topic (a noun naming the thing asked about), a concept
 * nor a detail, against 1 for those: in "I clicked the reset link in the email and it says
 * invalid" the verbs and modifiers qualify the question, the link and the password name it. Chosen
 * on the dev set (0.5 keeps it at 0 unsupported answers; 0.25 admits a trap).
 */
const QUALIFIER_WEIGHT = 0.5;

/** The question's support decision over the offered passages; its figures go into the trace. */
export interface SupportDecision {
  readonly focus: QuestionFocus;
  /** Every answer-capable sentence, best first. */
  readonly scored: readonly ScoredSentence[];
  /** Topics of the question that no offered passage names at all. */
  readonly unnamed: readonly string[];
  /** Labels of passages holding a sentence that addresses the question. */
  readonly addressing: ReadonlySet<string>;
}

/** One insertion, deletion or substitution apart ("tiket" and "ticket"): a typo, not another word. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  // Skip the differing character in the longer word (in both, for a substitution); the rest must match.
  return a.slice(i + (a.length >= b.length ? 1 : 0)) === b.slice(i + (b.length >= a.length ? 1 : 0));
}

/** Does this sentence address the question: enough of its focus, and every detail it asks? */
export const addresses = (s: ScoredSentence): boolean => s.coverage >= MIN_COVERAGE && s.missing.length === 0;

/**
 * Score every answer-capable sentence of the offered passages by how much of the question's
 * focus it states: each focus term weighted by its rarity among the candidate sentences (an idf
 * over this small set), so "lab" on every lab page counts less than "walk-in", and words that
 * only qualify the question by half. An asked detail
 * (a time, a fee, ...) is a requirement: a sentence that states none addresses nothing, however
 * many words it shares. A topic no offered passage names ("a pharmacy", "the wait") means the
 * material does not answer, whatever else matches. Sentences addressed to an assistant (injected
 * instructions) are never candidates.
 */
export function decideSupport(focus: QuestionFocus, passages: readonly LabeledPassage[]): SupportDecision {
  const candidates = passages.flatMap((p, rank) => statementsOf(p).map((s, position) => ({ label: p.label, rank, position, ...s })));
  const named = new Set(candidates.flatMap((c) => [...c.terms]));
  const unnamed = focus.topics.filter((t) => !named.has(t) && !(t.length >= 4 && [...named].some((n) => withinOneEdit(t, n))));
  if (focus.terms.length === 0 || candidates.length === 0) return { focus, scored: [], unnamed, addressing: new Set() };
  const central = new Set(focus.topics);
  const weight = new Map(
    focus.terms.map((t) => [
      t,
      (central.has(t) || t.startsWith('@') || t.startsWith('#') ? 1 : QUALIFIER_WEIGHT) * Math.log(1 + candidates.length / (1 + candidates.filter((c) => c.terms.has(t)).length)),
    ]),
  );
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  // An asked detail may sit in the next sentence of the same passage ("... is a late cancellation. The fee is $25."):
  // the passage must state it, and sentences that state it themselves rank first.
  const passageStates = new Map(passages.map((p) => [p.label, new Set(candidates.filter((c) => c.label === p.label).flatMap((c) => [...c.terms]))]));
  // The most specific things asked about (the rarest topics the material names): a sentence naming none of them is about something else.
  const rarest = Math.max(0, ...focus.topics.map((t) => weight.get(t) ?? 0));
  const specific = focus.topics.filter((t) => rarest > 0 && (weight.get(t) ?? 0) >= rarest);
  const scored: ScoredSentence[] = candidates.map(({ terms, channels, days, ...c }) => ({
    ...c,
    coverage: focus.terms.reduce((sum, t) => sum + (terms.has(t) ? (weight.get(t) ?? 0) : 0), 0) / total,
    missing: [
      ...[...focus.details].filter((d) => !(passageStates.get(c.label)?.has(d) ?? false)),
      ...(specific.length > 0 && !specific.some((t) => terms.has(t)) ? ['topic'] : []),
      ...(focus.channels.size > 0 && channels.size > 0 && ![...focus.channels].some((ch) => channels.has(ch)) ? ['channel'] : []),
      ...(focus.days.size > 0 && days.size > 0 && ![...focus.days].some((d) => days.has(d)) ? ['day'] : []),
    ],
    statesDetails: [...focus.details].every((d) => terms.has(d)),
  }));
  scored.sort((a, b) => Number(b.statesDetails) - Number(a.statesDetails) || b.coverage - a.coverage || a.rank - b.rank || a.position - b.position);
  return { focus, scored, unnamed, addressing: new Set(unnamed.length > 0 ? [] : scored.filter(addresses).map((s) => s.label)) };
}
