import { shippedInjectionDetector, type InjectionDetector } from '../policy/index.js';
import { sentenceSpans } from '../text/index.js';

/** A span [start, end) of a text and what was read there. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Text the injection detector reads as addressed to a machine reader, with its score. */
export interface FlaggedSpan extends TextSpan {
  readonly score: number;
}

/** Each line of `text` and each sentence of each line, raw, as a policy owner wrote them. */
function lineSpans(text: string): TextSpan[] {
  const out: TextSpan[] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    if (line.trim() !== '') {
      out.push({ start, end: start + line.length, text: line });
      const sentences = sentenceSpans(line);
      if (sentences.length > 1) for (const s of sentences) out.push({ start: start + s.start, end: start + s.end, text: line.slice(s.start, s.end) });
    }
    start += line.length + 1;
  }
  return out;
}

/**
 * Every text of a passage the detector is asked about: each raw line and each sentence of it (as
 * ingest reports them) and each unit as the judge would read it (a sentence in plain text, an item
 * with its lead-in, a row with its header cells), so the report and the answer path read the same
 * texts and exclude by the same spans. `units` are the passage's units drawn without any exclusion.
 */
export function flaggedTexts(text: string, units: readonly TextSpan[], detector: InjectionDetector = shippedInjectionDetector()): FlaggedSpan[] {
  const seen = new Set<string>();
  const out: FlaggedSpan[] = [];
  for (const span of [...lineSpans(text), ...units]) {
    const key = `${span.start}:${span.end}:${span.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const score = detector.score(span.text);
    if (score >= detector.threshold) out.push({ ...span, score });
  }
  return out;
}

export const overlaps = (a: { readonly start: number; readonly end: number }, b: { readonly start: number; readonly end: number }): boolean => a.start < b.end && b.start < a.end;
