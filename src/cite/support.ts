import { isInstruction } from '../policy/index.js';
import { analysisTerms, passageSentences } from '../text/index.js';
import { contextTerms, type SupportingText } from './coverage.js';

/**
 * Lexical support: the share of a sentence's content words (stemmed, stop words dropped) that its
 * cited passages contain. A verbatim extract scores 1; an invented detail (a fee, a time, a
 * phone number) that no cited passage states pulls it down. Sentences addressed to an assistant
 * (injected instructions) support nothing. The score goes into the trace.
 */
export function supportScore(sentence: string, cited: readonly SupportingText[]): number {
  const terms = analysisTerms(sentence);
  if (terms.length === 0) return 0;
  const available = new Set(cited.flatMap((p) => [...contextTerms(p), ...analysisTerms(passageSentences(p.passage.text).filter((t) => !isInstruction(t)).join(' '))]));
  return terms.filter((t) => available.has(t)).length / terms.length;
}

export const SUPPORT_THRESHOLD = 0.8;
