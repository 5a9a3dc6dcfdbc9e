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

/** A span [start, end) of a text. */
type Span = Pick<TextSpan, 'start' | 'end'>;

export const overlaps = (a: Span, b: Span): boolean => a.start < b.end && b.start < a.end;

/**
 * Each line of `text`, raw, as a policy owner wrote it, and each sentence of each line; where a paragraph runs over
 * several lines (a hard-wrapped page), each sentence of the paragraph instead of its lines' pieces: a wrap cuts
 * sentences, and the piece of one left at a line's end ("… the next open slot. This") is no text anyone wrote as a
 * sentence (alone, "This" reads to the detector as addressed to a machine, 0.90).
 */
function lineSpans(text: string, paragraphs: readonly Span[]): TextSpan[] {
  const wrapped = paragraphs.filter((p) => text.slice(p.start, p.end).includes('\n'));
  const out: TextSpan[] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    if (line.trim() !== '') {
      out.push({ start, end: start + line.length, text: line });
      const sentences = wrapped.some((p) => overlaps(p, { start, end: start + line.length })) ? [] : sentenceSpans(line);
      if (sentences.length > 1) for (const s of sentences) out.push({ start: start + s.start, end: start + s.end, text: line.slice(s.start, s.end) });
    }
    start += line.length + 1;
  }
  for (const p of wrapped) {
    // The paragraph's lines joined as one (a line break is a space), so offsets stay those of `text`.
    const joined = text.slice(p.start, p.end).replace(/\n/gu, ' ');
    for (const s of sentenceSpans(joined)) out.push({ start: p.start + s.start, end: p.start + s.end, text: joined.slice(s.start, s.end) });
  }
  return out;
}

/**
 * Every text of a passage the detector is asked about: each raw line and each sentence of it, or of its
 * paragraph where `paragraphs` (spans of the Markdown tree's paragraphs) says one runs over several lines (as
 * ingest reports them), and each unit as the judge would read it (a sentence in plain text, an item
 * with its lead-in, a row with its header cells), so the report and the answer path read the same
 * texts and exclude by the same spans. `units` are the passage's units drawn without any exclusion.
 */
export function flaggedTexts(
  text: string,
  units: readonly TextSpan[],
  paragraphs: readonly Span[],
  detector: InjectionDetector = shippedInjectionDetector(),
): FlaggedSpan[] {
  const seen = new Set<string>();
  const out: FlaggedSpan[] = [];
  for (const span of [...lineSpans(text, paragraphs), ...units]) {
    const key = `${span.start}:${span.end}:${span.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const score = detector.score(span.text);
    if (score >= detector.threshold) out.push({ ...span, score });
  }
  return out;
}

