import { isInstruction, keptOutOfAnswers } from '../policy/index.js';
import { boundedMemo } from '../domain/index.js';
import { contentTerms, passageSentences } from '../text/index.js';
import { passageUnits } from './units.js';

/** A passage as its cited text is read: under its page title and section headings. */
interface SupportingText {
  readonly passage: { readonly text: string; readonly start: number; readonly end: number; readonly headings: readonly string[] };
  readonly revision: { readonly title: string };
}

/** The text of each unit of a passage that the injection detector keeps out of answers. */
const keptOut = (passage: SupportingText['passage']): string[] =>
  passageUnits(passage)
    .filter((u) => keptOutOfAnswers(u.text))
    .map((u) => u.text);

/**
 * The sentences of a passage that may lend their words to an answer; remembered, since every sentence
 * of an answer reads its cited passages again and parsing their units is most of the check's cost.
 */
const lent = boundedMemo<readonly string[]>(20_000);
const lending = (passage: SupportingText['passage']): readonly string[] =>
  lent(`${passage.start}\u0000${passage.end}\u0000${passage.headings.join('\u0001')}\u0000${passage.text}`, () => {
    const out = keptOut(passage);
    return passageSentences(passage.text).filter((t) => !isInstruction(t) && !out.some((u) => u.includes(t.trim())));
  });

/**
 * Lexical support of a generated sentence: the share of its content words (stemmed, stop words
 * dropped) that its cited passages state, titles and headings included. A verbatim extract scores
 * 1; an invented detail (a fee, a time, a phone number) that no cited passage states pulls it
 * down. Sentences addressed to an assistant (injected instructions) support nothing, nor do those
 * of a unit the injection detector keeps out of answers (at its answer threshold, read on the unit
 * as the judge's exclusion reads it, so a plain sentence inside an answering unit keeps its words).
 * This checks that an answer says only what its citations say; whether they answer the question
 * is the judge's.
 */
export function supportScore(sentence: string, cited: readonly SupportingText[]): number {
  const terms = contentTerms(sentence);
  // A sentence without content words ("No.", the answer of an FAQ entry) is supported only verbatim.
  if (terms.length === 0) return cited.some((p) => sentence.trim() !== '' && p.passage.text.includes(sentence.trim())) ? 1 : 0;
  const available = new Set(cited.flatMap((p) => [...contentTerms([p.revision.title, ...p.passage.headings].join(' ')), ...contentTerms(lending(p.passage).join(' '))]));
  return terms.filter((t) => available.has(t)).length / terms.length;
}

export const SUPPORT_THRESHOLD = 0.8;
