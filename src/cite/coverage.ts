import type { LabeledPassage } from '../domain/index.js';
import { isInstruction } from '../policy/index.js';
import { analysisTerms, askedDetails, detailCues, passageSentences, statedDetails } from '../text/index.js';

export interface ScoredSentence {
  readonly label: string;
  /** Position of the passage among those offered (0 = best ranked). */
  readonly rank: number;
  readonly position: number;
  readonly text: string;
  /** Weighted share of the question's content words the sentence states, 0..1. */
  readonly coverage: number;
}

/** A sentence is read under its page title and section headings: "Eastside Clinic hours" gives "hours" to every sentence below it. */
export interface SupportingText {
  readonly passage: { readonly text: string; readonly headings: readonly string[] };
  readonly revision: { readonly title: string };
}

export function contextTerms(p: SupportingText): string[] {
  return analysisTerms([p.revision.title, ...p.passage.headings].join(' '));
}

/**
 * Score every answer-capable sentence of the offered passages by how much of the question it
 * states: the question's content words, each weighted by its rarity among the candidate sentences
 * (an idf over this small set), so "lab" on every lab page counts less than "walk-in". The detail
 * asked for (a time, a fee, ...) counts as a term that only sentences stating such a detail have.
 * Sentences that address the assistant (injected instructions) are never candidates.
 */
export function scoreSentences(question: string, passages: readonly LabeledPassage[]): ScoredSentence[] {
  const candidates = passages.flatMap((p, rank) => {
    const context = contextTerms(p);
    return passageSentences(p.passage.text)
      .filter((text) => !isInstruction(text))
      .map((text, position) => ({
        label: p.label,
        rank,
        position,
        text,
        terms: new Set([...context, ...analysisTerms(text), ...statedDetails(text)]),
      }));
  });
  const asked = askedDetails(question);
  const cues = detailCues(asked);
  const terms = [...new Set([...analysisTerms(question).filter((t) => !cues.has(t)), ...asked])];
  if (terms.length === 0 || candidates.length === 0) return [];
  const weight = new Map(terms.map((t) => [t, Math.log(1 + candidates.length / (1 + candidates.filter((c) => c.terms.has(t)).length))]));
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  return candidates
    .map(({ terms: sentenceTerms, ...c }) => ({
      ...c,
      coverage: terms.reduce((sum, t) => sum + (sentenceTerms.has(t) ? (weight.get(t) ?? 0) : 0), 0) / total,
    }))
    .sort((a, b) => b.coverage - a.coverage || a.rank - b.rank || a.position - b.position);
}

/** Least coverage for a sentence to count as addressing the question; one reviewed setting. */
export const MIN_COVERAGE = 0.5;

/** The labels of passages holding at least one sentence that addresses the question. */
export function addressingLabels(scored: readonly ScoredSentence[], minCoverage: number = MIN_COVERAGE): ReadonlySet<string> {
  return new Set(scored.filter((s) => s.coverage >= minCoverage).map((s) => s.label));
}
