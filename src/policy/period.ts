import * as chrono from 'chrono-node';
import type { IsoDate, LabeledPassage, RevisionMeta, SourceId } from '../domain/index.js';
import { askingSentences } from '../text/index.js';

/**
 * A period the question asks about ("last year", "next week", "in 2027", "in January", "on
 * Saturday"), resolved against the day it is asked. A rule answers for that period only when the
 * revision stating it is in force throughout it.
 */
export interface AskedPeriod {
  /** The words of the question that name it. */
  readonly text: string;
  readonly from: IsoDate;
  readonly to: IsoDate;
}

const parser = chrono.casual.clone();
// A bare year ("in 2027", "for 2025", "after [DATE] 2027": redaction keeps a date's year) names the
// whole year; chrono reads a year only beside a month or a day.
parser.parsers.push({
  pattern: () => /\b(?:in|for|during|by|until|through|of|after|before|from|since|on)\s+(?:\[DATE\]\s+)?((?:19|20)\d{2})\b/iu,
  extract: (context, match) => {
    const components = context.createParsingComponents();
    components.assign('year', Number(match[1]));
    components.imply('month', 1);
    components.imply('day', 1);
    return components;
  },
});

/**
 * "in a year", "within 24 hours", "48 hours before": a length of time (the window of a rule: three
 * no-shows in a year, cancel 24 hours before), not a day the question asks about; nor is a unit
 * with only an article ("what are the hours", "the days you are open"), which chrono reads as one.
 */
const DURATION = /^(?:in|within)\s+(?:a|an|one|a few|a couple of|\d+)\s|\b(?:before|after|prior)$/iu;
const UNIT = String.raw`(?:the\s+|an?\s+)?(?:second|minute|hour|day|week|month|year)s?`;
const UNITS_ONLY = new RegExp(String.raw`^${UNIT}(?:\s+(?:and|or|&)\s+${UNIT})*$`, 'iu');

const iso = (y: number, m: number, d: number): IsoDate => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/** Meteorological seasons (northern hemisphere): first month, and months spanned. */
const SEASONS: Readonly<Record<string, number>> = { spring: 3, summer: 6, fall: 9, autumn: 9, winter: 12 };
const SEASON = /\b(this past|last|next|this coming|this)\s+(spring|summer|fall|autumn|winter)\b/giu;

/** "last summer", "this past winter", "next spring", "this fall": three months, the latest past one for "last". */
function seasonPeriods(question: string, asOf: IsoDate): AskedPeriod[] {
  const [year = 0, month = 1] = asOf.split('-').map(Number);
  return [...question.matchAll(SEASON)].map((m) => {
    const first = SEASONS[(m[2] ?? '').toLowerCase()] ?? 1;
    // The season that contains or last began before the asking month, then a year back or ahead.
    const current = first <= month ? year : year - 1;
    const ongoing = (month - first + 12) % 12 < 3;
    const relative = (m[1] ?? '').toLowerCase();
    const start = relative === 'next' || relative === 'this coming' ? current + 1 : relative === 'this' || !ongoing ? current : current - 1;
    return { text: m[0], from: iso(start, first, 1), to: iso(start, first + 3, 0) };
  });
}

/**
 * The periods a question names, each as the days it covers: a day, a whole month, a season or a
 * whole year, as precisely as it was said. When the message asks something (a sentence ending in
 * "?"), only the asking sentences count: "is the lab open saturdays? it was a few years ago" asks
 * about now, and the past is context.
 */
export function askedPeriods(message: string, asOf: IsoDate): AskedPeriod[] {
  const question = askingSentences(message);
  const reference = { instant: new Date(`${asOf}T12:00:00Z`), timezone: 'UTC' };
  const out: AskedPeriod[] = seasonPeriods(question, asOf);
  // A date said without its year ("on March 3", "this Saturday") is the next one: patients ask about visits ahead.
  for (const result of parser.parse(question, reference, { forwardDate: true })) {
    if (result.tags().has('result/relativeDate') && (DURATION.test(result.text) || UNITS_ONLY.test(result.text))) continue;
    const start = result.start;
    const [y, m, d] = [start.get('year') ?? 0, start.get('month') ?? 1, start.get('day') ?? 1];
    if (start.isCertain('day') || start.isCertain('weekday')) out.push({ text: result.text, from: iso(y, m, d), to: iso(y, m, d) });
    else if (start.isCertain('month')) out.push({ text: result.text, from: iso(y, m, 1), to: iso(y, m + 1, 0) });
    else if (start.isCertain('year')) out.push({ text: result.text, from: iso(y, 1, 1), to: iso(y, 12, 31) });
    // A time of day alone ("at 8 am") names no other day.
  }
  return out;
}

/**
 * Why a passage cannot answer for the periods asked, or null: its revision is not the one in force
 * throughout each of them (from the asking day on, for a period that includes it), for the asking
 * role. A superseded rule does not answer for today, and today's rule does not answer for last year
 * or for a year a newer revision will govern.
 */
export function periodExclusion(
  passage: Pick<LabeledPassage, 'revision'>,
  periods: readonly AskedPeriod[],
  asOf: IsoDate,
  inForce: (asOf: IsoDate) => ReadonlyMap<SourceId, Pick<RevisionMeta, 'revision' | 'effectiveDate'>>,
): string | null {
  const { sourceId, revision } = passage.revision;
  for (const period of periods) {
    const from = period.from <= asOf && asOf <= period.to ? asOf : period.from;
    for (const day of [from, period.to]) {
      const then = inForce(day).get(sourceId);
      if (then?.revision !== revision) {
        const what = then === undefined ? 'no revision of it was in force' : `the revision in force is the one effective ${then.effectiveDate}`;
        return `asked about ${period.from === period.to ? period.from : `${period.from}..${period.to}`} ("${period.text}"): on ${day} ${what}`;
      }
    }
  }
  return null;
}
