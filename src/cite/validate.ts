import type { Citation, LabeledPassage, TraceSentence } from '../domain/index.js';
import { checkLabels, stripLabels } from './labels.js';
import { SUPPORT_THRESHOLD, supportScore } from './support.js';

export interface ValidatedSentence extends TraceSentence {
  readonly support: number;
}

export type Validation =
  | { readonly ok: true; readonly sentences: readonly ValidatedSentence[]; readonly citations: readonly Citation[] }
  | {
      readonly ok: false;
      readonly reason: 'CITATION_GAP' | 'CITATION_UNKNOWN' | 'UNSUPPORTED_CLAIM';
      readonly detail: string;
      readonly sentences: readonly TraceSentence[];
    };

/**
 * Validate a generated answer against the passages it was given: labels first (gap, unknown),
 * then support of each sentence by its own cited passages. Citations carry exactly the text
 * the generator received.
 */
export function validateAnswer(answer: string, offered: readonly LabeledPassage[]): Validation {
  const byLabel = new Map(offered.map((p) => [p.label, p]));
  const labels = checkLabels(answer, new Set(byLabel.keys()));
  const plain = labels.sentences.map((s) => ({ text: s.text, labels: [...s.labels] }));
  if (!labels.ok) return { ok: false, reason: labels.reason, detail: labels.detail, sentences: plain };

  const sentences: ValidatedSentence[] = [];
  for (const s of labels.sentences) {
    const cited = s.labels.flatMap((label) => {
      const p = byLabel.get(label);
      return p === undefined ? [] : [p];
    });
    const support = supportScore(stripLabels(s.text), cited);
    if (support < SUPPORT_THRESHOLD) {
      return { ok: false, reason: 'UNSUPPORTED_CLAIM', detail: `support ${support.toFixed(2)} < ${SUPPORT_THRESHOLD} for: ${s.text}`, sentences: plain };
    }
    sentences.push({ text: s.text, labels: [...s.labels], support });
  }
  const used = [...new Set(sentences.flatMap((s) => s.labels))];
  const citations = used.flatMap((label) => {
    const p = byLabel.get(label);
    return p === undefined
      ? []
      : [{ label, source_id: p.passage.sourceId, revision: p.passage.revision, version: p.revision.version, chunk_id: p.passage.chunkId, text: p.passage.text }];
  });
  return { ok: true, sentences, citations };
}
