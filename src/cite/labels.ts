import { splitSentences } from '../text/index.js';

export interface LabeledSentence {
  /** The sentence as shown, labels included. */
  readonly text: string;
  readonly labels: readonly string[];
}

/** A group of one or more labels, "[S1]", "[S1][S2]" or "[S1, S2]", closing a sentence. */
const LABEL_GROUP = /((?:\s*\[\s*S\d+(?:\s*,\s*S\d+)*\s*\])+)\s*([.!?]?)(?=\s|$)/gu;
const LABEL = /S\d+/gu;

/**
 * Split an answer into sentences with the labels that close each one. Text between label
 * groups may hold several sentences: only the last of them carries the group's labels.
 */
export function parseLabeledSentences(answer: string): LabeledSentence[] {
  const out: LabeledSentence[] = [];
  let cursor = 0;
  const pushPlain = (text: string): void => {
    for (const s of splitSentences(text)) out.push({ text: s, labels: [] });
  };
  for (const match of answer.matchAll(LABEL_GROUP)) {
    const before = splitSentences(answer.slice(cursor, match.index));
    const last = before.pop();
    for (const s of before) out.push({ text: s, labels: [] });
    const group = match[1] ?? '';
    const labels = [...new Set(group.match(LABEL) ?? [])];
    if (last === undefined) {
      // A label group with no sentence before it cites nothing.
      out.push({ text: group.trim(), labels: [] });
    } else {
      out.push({ text: `${last} ${group.trim()}${match[2] ?? ''}`.trim(), labels });
    }
    cursor = match.index + match[0].length;
  }
  pushPlain(answer.slice(cursor));
  return out;
}

export type LabelCheck =
  | { readonly ok: true; readonly sentences: readonly LabeledSentence[] }
  | { readonly ok: false; readonly reason: 'CITATION_GAP' | 'CITATION_UNKNOWN'; readonly sentences: readonly LabeledSentence[]; readonly detail: string };

/**
 * The citation contract on labels alone: an answer is accepted exactly when it has at least one
 * sentence, every sentence carries a label, and every label was offered to the generator.
 */
export function checkLabels(answer: string, known: ReadonlySet<string>): LabelCheck {
  const sentences = parseLabeledSentences(answer);
  if (sentences.length === 0) return { ok: false, reason: 'CITATION_GAP', sentences, detail: 'empty answer' };
  const unknown = sentences.flatMap((s) => s.labels).find((label) => !known.has(label));
  if (unknown !== undefined) return { ok: false, reason: 'CITATION_UNKNOWN', sentences, detail: `label ${unknown} was not offered` };
  const gap = sentences.find((s) => s.labels.length === 0);
  if (gap !== undefined) return { ok: false, reason: 'CITATION_GAP', sentences, detail: `no label on: ${gap.text}` };
  return { ok: true, sentences };
}

export function stripLabels(sentence: string): string {
  return sentence.replace(/\[\s*S\d+(?:\s*,\s*S\d+)*\s*\]/gu, '').replace(/\s+([.!?])$/u, '$1').trim();
}
