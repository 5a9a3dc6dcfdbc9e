import { CitetraceError } from '../domain/index.js';

/** Long enough for a rambling message (a crisis line may sit anywhere in it: the router reads every sentence). */
export const MAX_QUESTION_CHARS = 10_000;

/** Domain shorthand and common misspellings, rewritten before routing and retrieval. */
const REWRITES: readonly (readonly [RegExp, string])[] = [
  [/\bappts?\b/gu, 'appointment'],
  [/\bappoint?ments?\b/gu, 'appointment'],
  [/\bapointments?\b/gu, 'appointment'],
  [/\bresched\b/gu, 'reschedule'],
  [/\bre-?sched(?:ule|uling)\b/gu, 'reschedule'],
  [/\bwalk ?ins?\b/gu, 'walk-in'],
  [/\bdr\.?(?=\s)/gu, 'doctor'],
  [/\bdoc\b/gu, 'doctor'],
  [/\bpeds\b/gu, 'pediatrics'],
  [/\bcancell?ation\b/gu, 'cancellation'],
  [/\bcancle\b/gu, 'cancel'],
  [/\btelehealth\b/gu, 'video visit'],
  [/\bhrs\b/gu, 'hours'],
  [/\bpts?\b/gu, 'patient'],
  [/\bacct\b/gu, 'account'],
  [/\bportl\b/gu, 'portal'],
  [/\bvid\b/gu, 'video'],
  [/\blibary\b/gu, 'library'],
  [/\bwlk-?ins?\b/gu, 'walk-in'],
  [/\bmon-fri\b/gu, 'monday through friday'],
  [/\bpls\b|\bplz\b/gu, 'please'],
  [/\bu\b/gu, 'you'],
  [/\bur\b/gu, 'your'],
];

export interface NormalizedQuestion {
  /** As the user typed it (trimmed); answers are drawn for this, the stored copy is redacted. */
  readonly original: string;
  /** Unicode NFKC, one space between words, lower case, shorthand expanded. */
  readonly normalized: string;
}

/** Normalize a question, refusing empty or over-long input with a BAD_INPUT error. */
export function normalizeQuestion(question: string): NormalizedQuestion {
  const original = question.trim();
  if (original === '') throw new CitetraceError('BAD_INPUT', 'the question is empty');
  if (original.length > MAX_QUESTION_CHARS) {
    throw new CitetraceError('BAD_INPUT', `the question is ${original.length} characters; the limit is ${MAX_QUESTION_CHARS}`);
  }
  let normalized = original
    .normalize('NFKC')
    .replace(/[\u2018\u2019]/gu, "'")
    .replace(/[\u201C\u201D]/gu, '"')
    .replace(/\s+/gu, ' ')
    .toLowerCase();
  for (const [pattern, replacement] of REWRITES) normalized = normalized.replace(pattern, replacement);
  return { original, normalized: normalized.trim() };
}
