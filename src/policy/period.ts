import * as chrono from 'chrono-node';
import type Holidays from 'date-holidays';
import { data as holidayData } from 'date-holidays/data';
import { createRequire } from 'node:module';
import { boundedMemo, IsoDateSchema, type IsoDate, type LabeledPassage, type RevisionMeta, type SourceId } from '../domain/index.js';
import type { Unit } from '../cite/index.js';
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

/** The days numbered `day` from the reference's day on, over the next twelve months (a 31st skips the shorter months). */
function daysNumbered(ref: Date, day: number): Date[] {
  const today = Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth(), ref.getUTCDate());
  return Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth() + i, day))).filter((d) => d.getUTCDate() === day && d.getTime() >= today);
}

/** A parsed date for chrono, from a day found, or none. */
function dateFound(context: chrono.ParsingContext, date: Date | undefined): chrono.ParsingComponents | null {
  if (date === undefined) return null;
  const components = context.createParsingComponents();
  components.assign('year', date.getUTCFullYear());
  components.assign('month', date.getUTCMonth() + 1);
  components.assign('day', date.getUTCDate());
  return components;
}

// "saturday the 26th", "Thu 24th": the next day of that number falling on that weekday, else the next
// day of that number (chrono reads the weekday alone, which is the coming one, not that date).
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
parser.parsers.push({
  pattern: () => /\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b/iu,
  extract: (context, match) => {
    const weekday = WEEKDAYS.indexOf((match[1] ?? '').toLowerCase());
    const candidates = daysNumbered(context.reference.instant, Number(match[2]));
    return dateFound(context, candidates.find((d) => d.getUTCDay() === weekday) ?? candidates[0]);
  },
});

// "on the 26th", "til the 2nd", "(the 26th)": a day of the month said alone is the next such date from the asking day,
// when it ends a clause or a word follows that cannot be the noun it counts ("for the 2nd time", "the 1st appointment",
// "the 5th percentile" are not days). chrono reads a day's number only beside a month or a weekday.
parser.parsers.push({
  pattern: () =>
    /(?:\b(?:on|for|by|til|till|until|through|thru|from)\s+|(?<=\())the\s+(\d{1,2})(?:st|nd|rd|th)\b(?=\s*(?:$|[?.!,;:)]|(?:and|or|but|so|at|in|is|was|will|when|if|because|since|to|too|instead|please|then|this|that|morning|afternoon|evening|night)\b))/iu,
  extract: (context, match) => dateFound(context, daysNumbered(context.reference.instant, Number(match[1]))[0]),
});

/**
 * "in a year", "within 24 hours", "48 hours before": a length of time (the window of a rule: three
 * no-shows in a year, cancel 24 hours before), not a day the question asks about; nor is a unit
 * with only an article ("what are the hours", "the days you are open"), which chrono reads as one.
 */
const DURATION = /^(?:in|within)\s+(?:a|an|one|a few|a couple of|\d+)\s|\b(?:before|after|prior)$/iu;
const UNIT = String.raw`(?:the\s+|an?\s+)?(?:second|minute|hour|day|week|month|year)s?`;
const UNITS_ONLY = new RegExp(String.raw`^${UNIT}(?:\s+(?:and|or|&)\s+${UNIT})*$`, 'iu');
/** An age, not a time: "my 80 year old mom", "a 6-month-old", "my 3 yr old" (chrono reads "80 year" as 80 years ahead). */
const AGE_AFTER = /^[-\s]?old\b/iu;

const iso = (y: number, m: number, d: number): IsoDate => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/** Meteorological seasons (northern hemisphere): first month, and months spanned. */
const SEASONS: Readonly<Record<string, number>> = { spring: 3, summer: 6, fall: 9, autumn: 9, winter: 12 };
const SEASON = /\b(this past|last|next|this coming|this)\s+(spring|summer|fall|autumn|winter)\b/giu;

/**
 * A season said without its name ("last season", "this past flu season", "next ski season"): a yearly cycle whose
 * months the question does not give, so the twelve months before the asking day, or after it. "This season" is now.
 */
const CYCLE = /\b(this past|last|past|previous|next|this coming|coming)\s+(?:(?!(?:spring|summer|fall|autumn|winter|the|a|an|this|that)\b)[a-z]+\s+)?season\b/giu;

/** The day `days` days (and `years` years) from `day`. */
const shiftDays = (day: IsoDate, days: number, years = 0): IsoDate => {
  const [y = 0, m = 1, d = 1] = day.split('-').map(Number);
  return iso(y + years, m, d + days);
};

/** "last summer", "this past winter", "next spring", "this fall": three months, the latest past one for "last"; a season unnamed, a year. */
function seasonPeriods(question: string, asOf: IsoDate): AskedPeriod[] {
  const [year = 0, month = 1] = asOf.split('-').map(Number);
  const cycles = [...question.matchAll(CYCLE)].map((m): AskedPeriod => {
    return /^(?:next|(?:this )?coming)$/iu.test(m[1] ?? '') ? { text: m[0], from: shiftDays(asOf, 1), to: shiftDays(asOf, 0, 1) } : { text: m[0], from: shiftDays(asOf, 0, -1), to: shiftDays(asOf, -1) };
  });
  return [...cycles, ...[...question.matchAll(SEASON)].map((m) => {
    const first = SEASONS[(m[2] ?? '').toLowerCase()] ?? 1;
    // The season that contains or last began before the asking month, then a year back or ahead.
    const current = first <= month ? year : year - 1;
    const ongoing = (month - first + 12) % 12 < 3;
    const relative = (m[1] ?? '').toLowerCase();
    const start = relative === 'next' || relative === 'this coming' ? current + 1 : relative === 'this' || !ongoing ? current : current - 1;
    return { text: m[0], from: iso(start, first, 1), to: iso(start, first + 3, 0) };
  })];
}

/**
 * Holidays by name, from date-holidays' calendar (United States: the contract's emergency and
 * crisis numbers are American): "Christmas Eve", "New Year's Day", "Martin Luther King Jr. Day",
 * "Day after Thanksgiving Day". A name is matched without its apostrophes, periods and "Jr";
 * a trailing "Day" may be left out only where people do ("christmas", "thanksgiving", "new
 * years", "mlk"), not where the word alone means something else ("labor", "memorial"). Longer
 * names first, so "christmas eve" is not Christmas.
 *
 * The names come from the calendar's data; its rule engine (a tenth of a cold `ask`) is loaded
 * only when a question names a holiday, to date it.
 */
const US = holidayData.holidays.US;
/** Each United States holiday's name as the calendar gives it: in the first of the country's languages ("en-us", "en") the name has. */
export const US_HOLIDAY_NAMES: readonly string[] = Object.values(US?.days ?? {}).flatMap((day) => {
  const names = day.name ?? (day._name === undefined ? undefined : holidayData.names[day._name]?.name);
  const name = (US?.langs ?? []).map((lang) => names?.[lang]).find((n) => n !== undefined);
  return name === undefined ? [] : [name];
});
const load = createRequire(import.meta.url);
let calendar: Holidays | undefined;
const usCalendar = (): Holidays => (calendar ??= new (load('date-holidays') as typeof Holidays)('US'));
const holidayKey = (name: string): string => name.toLowerCase().replace(/['’.]|\bjr\b/gu, '').replace(/\s+/gu, ' ').trim();
const SAID_WITHOUT_DAY = new Set(['christmas', 'thanksgiving', 'new years', 'martin luther king', 'juneteenth', 'independence']);
/** What people call a holiday, as the calendar's name (keyed). */
const ALIASES: readonly (readonly [RegExp, string])[] = [
  [/\bxmas\b/gu, 'christmas'],
  [/\bmlk\b/gu, 'martin luther king'],
  [/\bnew year\b(?= (?:day|eve)\b)/gu, 'new years'],
  [/\b(?:the )?(?:4th|fourth) of july\b/gu, 'independence day'],
  [/\bpresidents? day\b/gu, 'washingtons birthday'],
  [/\b(?:black friday|(?:the )?friday after thanksgiving)\b/gu, 'day after thanksgiving day'],
];
interface HolidayName {
  readonly key: string;
  /** The name as it may be said, with "the day after" or "the day before" in front and a year after it if so. */
  readonly said: RegExp;
}
const HOLIDAY_SAYINGS = [...new Set(US_HOLIDAY_NAMES.map(holidayKey))]
  .map((key) => {
    // The key without a trailing "day", which may or must follow.
    const core = key.replace(/ day$/u, '');
    const day = SAID_WITHOUT_DAY.has(core) ? '(?: day)?' : core === key ? '' : ' day';
    // A year right after the name dates it ("new year's eve 2027", "christmas of 2027").
    // "last" or "next" before the name picks the one before or after the asking day ("were you closed last christmas?").
    return { key, core, said: new RegExp(String.raw`(?:\b(last|this past|next|this coming) )?(?:\b(?:the )?day (after|before) )?\b${core}${day}\b(?:,? (?:of |in )?((?:19|20)\d{2})\b)?`, 'gu') };
  })
  .sort((a, b) => b.core.length - a.core.length);
const HOLIDAY_NAMES: readonly HolidayName[] = HOLIDAY_SAYINGS.map(({ key, said }) => ({ key, said }));
/** Every name's core at a word's start: a text without one names no holiday, and its patterns need not run. */
const ANY_HOLIDAY = new RegExp(String.raw`\b(?:${HOLIDAY_SAYINGS.map(({ core }) => core).join('|')})`, 'u');

/** Each year's holiday dates by key, computed once per year (date-holidays evaluates its rules on every call). */
const holidaysOfYear = new Map<number, ReadonlyMap<string, IsoDate>>();
function holidayDate(key: string, year: number): IsoDate | undefined {
  let dates = holidaysOfYear.get(year);
  if (dates === undefined) holidaysOfYear.set(year, (dates = new Map(usCalendar().getHolidays(year).map((h) => [holidayKey(h.name), h.date.slice(0, 10)]))));
  return dates.get(key);
}

/**
 * Holidays named in a text ("on christmas eve", "the day after christmas", "MLK day"): the one
 * within another period the text names ("the fourth of july next summer", "the day after
 * Thanksgiving last year") or of the year said after it ("christmas 2027"), else the nearest one
 * to `asOf`, past or ahead ("was it open the day after Thanksgiving?" a week after it; "christmas"
 * in December), or before or after it when "last" or "next" says so ("last christmas" in December
 * is a year ago).
 */
function holidayPeriods(text: string, asOf: IsoDate, within: readonly AskedPeriod[]): AskedPeriod[] {
  let rest = ALIASES.reduce((t, [pattern, key]) => t.replace(pattern, key), holidayKey(text));
  if (!ANY_HOLIDAY.test(rest)) return [];
  const out: AskedPeriod[] = [];
  const now = Number(asOf.slice(0, 4));
  const distance = (day: IsoDate): number => Math.abs(Date.parse(day) - Date.parse(asOf));
  const inside = (day: IsoDate): boolean => within.some((p) => p.from <= day && day <= p.to);
  const years = [...new Set([now - 1, now, now + 1, ...within.flatMap((p) => [Number(p.from.slice(0, 4)), Number(p.to.slice(0, 4))])])];
  for (const { key, said: pattern } of HOLIDAY_NAMES) {
    rest = rest.replace(pattern, (said: string, side?: string, relation?: string, year?: string) => {
      const shift = relation === 'after' ? 1 : relation === 'before' ? -1 : 0;
      const past = side === 'last' || side === 'this past';
      const days = (year === undefined ? years : [Number(year)])
        .flatMap((y) => {
          const day = holidayDate(key, y);
          return day === undefined ? [] : [shiftDays(day, shift)];
        })
        .filter((day) => side === undefined || year !== undefined || (past ? day < asOf : day > asOf))
        .sort((a, b) => Number(inside(b)) - Number(inside(a)) || distance(a) - distance(b));
      if (days[0] !== undefined) out.push({ text: said, from: days[0], to: days[0] });
      return ' '.repeat(said.length);
    });
  }
  return out;
}

const WEEKDAY = String.raw`(mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?`;
const FULL_WEEKDAY = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
/**
 * A weekday said as a habit, the rule of every such day: after "a", "any", "every", "normal", "regular", "typical",
 * "usual" or "ordinary" ("close on a normal saturday"); before "hours" or "schedule" ("saturday hours?"); in the plural
 * ("on sundays"), or before a part of the day in the plural ("saturday mornings"); and weekends said so ("weekends",
 * "weekend hours"). "this saturday", "on saturday", "saturday morning", "saturday the 26th" are days. Abbreviations
 * count only in the singular forms ("tues", "thurs" are not plurals).
 */
const EVERY = '(?:a|any|every|normal|regular|typical|usual|ordinary)';
const HABIT = new RegExp(
  String.raw`\b(?:${EVERY}\s+${WEEKDAY}\b|${WEEKDAY}\s+(?:hours?|schedule|mornings|afternoons|evenings|nights)\b|${FULL_WEEKDAY}s\b|${EVERY}\s+(weekend)\b|(weekend)s\b|(weekend)\s+(?:hours?|schedule)\b)`,
  'giu',
);
/** A day said only as a weekday, with a part of the day or not ("on saturday", "the thursday evening"): no date, no "this" or "next". */
const WEEKDAY_ALONE = new RegExp(String.raw`^(?:on\s+|the\s+)?${WEEKDAY}\.?(?:\s+(?:morning|afternoon|evening|night))?$`, 'iu');

/**
 * The single days a question asks about that a page stating that date may answer: a date, a holiday, a relative day
 * ("tomorrow", "this saturday"); not a weekday said alone ("on saturday"), which is read as the coming one but is as
 * often asked as any such day (candidate WK, docs/support-judge.md), so the coming date's holiday page is not sought for it.
 */
export const datedDays = (periods: readonly AskedPeriod[]): IsoDate[] => periods.flatMap((p) => (p.from === p.to && !WEEKDAY_ALONE.test(p.text.trim()) ? [p.from] : []));

/** A weekday's name from its first three letters; "weekend" names itself. */
const WEEKDAY_NAMES: Readonly<Record<string, string>> = { mon: 'monday', tue: 'tuesday', wed: 'wednesday', thu: 'thursday', fri: 'friday', sat: 'saturday', sun: 'sunday' };

/** The weekdays a text speaks of as habits ("sundays", "saturday hours", "a normal saturday"), with where each is said. */
const habits = (text: string): { readonly day: string; readonly from: number; readonly to: number }[] =>
  Array.from(text.matchAll(HABIT), (m) => {
    const said = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6] ?? '').toLowerCase();
    return { day: WEEKDAY_NAMES[said.slice(0, 3)] ?? said, from: m.index, to: m.index + m[0].length };
  });

/**
 * The weekdays a message asks about as habits, each once: "will pellory still be open on sundays in january?" asks
 * for the rule of every Sunday, which no row about one calendar day states. Read over the whole message ("I heard
 * Saltmarrow is starting Sunday hours. What date does that start?").
 */
export const habitualDays = (message: string): string[] => [...new Set(habits(message).map((h) => h.day))];

const COUNTS: Readonly<Record<string, number>> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, 'a couple of': 2 };
/**
 * A day or span said from another day, up to its anchor: "the saturday after", "two days before", "the week after",
 * "the weekend before", "a week from"; the anchor follows ("christmas", "dec 23", "that").
 */
const ANCHORED = new RegExp(
  String.raw`\b(?:the\s+)?(?:(?<count>\d{1,2}|a couple of|an?|one|two|three|four|five|six|seven)\s+(?<unit>days?|weeks?)\s+(?<relation>after|before|following|from)|(?<span>day|week|weekend|${WEEKDAY})\s+(?<spanRelation>after|before|following))\s+`,
  'giu',
);
/** "the next day", "the following day", "the day after" or "the day before" ending a clause: from the last day the message said. */
const NEXT_DAY = /\b(?:the\s+(?:next|following)\s+day\b|the\s+day\s+(?:after|before)(?=\s*(?:$|[?.!,;:])))/giu;
const BACK = /^(?:that|then|it)\b/iu;
const CLAUSE_END = /[?.!,;:]/u;

/** The period a message names last before `end`: what "that", "then" or "the next day" points back at. */
function lastPeriodBefore(message: string, end: number, asOf: IsoDate): AskedPeriod | undefined {
  const before = message.slice(0, end);
  const said = holidayKey(before);
  let last: { period: AskedPeriod; at: number } | undefined;
  for (const period of periodsIn(before, asOf, before)) {
    const at = said.lastIndexOf(holidayKey(period.text));
    if (last === undefined || at > last.at) last = { period, at };
  }
  return last?.period;
}

/** The first day after `day` (before it, `direction` -1) that falls on `weekday` (0 Sunday … 6 Saturday). */
function nextWeekday(day: IsoDate, weekday: number, direction: 1 | -1): IsoDate {
  let next = shiftDays(day, direction);
  while (new Date(next).getUTCDay() !== weekday) next = shiftDays(next, direction);
  return next;
}

/** The span an anchored phrase names, from its anchor. */
function fromAnchor(groups: Readonly<Record<string, string | undefined>>, anchor: AskedPeriod): AskedPeriod | null {
  const relation = (groups.relation ?? groups.spanRelation ?? '').toLowerCase();
  const direction = relation === 'before' ? -1 : 1;
  const edge = direction === 1 ? anchor.to : anchor.from;
  const span = (from: IsoDate, to: IsoDate): AskedPeriod => ({ text: '', from: from <= to ? from : to, to: from <= to ? to : from });
  if (groups.count !== undefined) {
    const count = COUNTS[groups.count.toLowerCase().replace(/\s+/gu, ' ')] ?? Number(groups.count);
    const day = shiftDays(edge, direction * count * (/^week/iu.test(groups.unit ?? '') ? 7 : 1));
    return span(day, day);
  }
  const what = (groups.span ?? '').toLowerCase();
  if (what === 'day') return span(shiftDays(edge, direction), shiftDays(edge, direction));
  if (what === 'week') return span(shiftDays(edge, direction), shiftDays(edge, 7 * direction));
  if (what === 'weekend') {
    const saturday = direction === 1 ? nextWeekday(edge, 6, 1) : shiftDays(nextWeekday(edge, 0, -1), -1);
    return span(saturday, shiftDays(saturday, 1));
  }
  const weekday = WEEKDAYS.indexOf(what.slice(0, 3));
  if (weekday < 0) return null;
  const day = nextWeekday(edge, weekday, direction);
  return span(day, day);
}

/**
 * Days said from another day (candidate DA, docs/support-judge.md): "the saturday after christmas", "two days before new
 * year's eve", "the week after dec 26", "a week from friday", "the day after that", "the following day". Each is one
 * period; the words it is said with are blanked in the text returned, so its weekday and its anchor are not read again.
 */
function anchoredPeriods(question: string, asOf: IsoDate, message: string): { readonly periods: AskedPeriod[]; readonly rest: string } {
  const periods: AskedPeriod[] = [];
  let rest = question;
  const blank = (from: number, to: number): void => {
    rest = rest.slice(0, from) + ' '.repeat(to - from) + rest.slice(to);
  };
  const lower = message.toLowerCase();
  const pointedBack = (said: string): AskedPeriod | undefined => {
    const at = lower.indexOf(said.toLowerCase());
    return at <= 0 ? undefined : lastPeriodBefore(message, at, asOf);
  };
  for (const m of question.matchAll(ANCHORED)) {
    const after = question.slice(m.index + m[0].length);
    let anchor: AskedPeriod | undefined;
    let anchorLength = 0;
    const back = BACK.exec(after);
    if (back !== null) {
      anchor = pointedBack(m[0] + back[0]);
      anchorLength = back[0].length;
    } else {
      const head = after.slice(0, CLAUSE_END.exec(after)?.index ?? after.length);
      const key = holidayKey(head);
      anchor = periodsIn(head, asOf, head).find((p) => key.startsWith(holidayKey(p.text)));
      // The anchor's words end with its last word (a holiday's text is keyed: "new years eve" for "new year's eve").
      const last = anchor?.text.split(' ').pop()?.toLowerCase() ?? '';
      anchorLength = anchor === undefined ? 0 : head.toLowerCase().indexOf(last) + last.length;
    }
    const period = anchor === undefined ? null : fromAnchor(m.groups ?? {}, anchor);
    if (period === null) continue;
    const said = question.slice(m.index, m.index + m[0].length + anchorLength).trim();
    periods.push({ ...period, text: said });
    blank(m.index, m.index + said.length);
  }
  for (const m of rest.matchAll(NEXT_DAY)) {
    const anchor = pointedBack(m[0]);
    const period = anchor === undefined ? null : fromAnchor({ span: 'day', spanRelation: /before/iu.test(m[0]) ? 'before' : 'after' }, anchor);
    if (period === null) continue;
    periods.push({ ...period, text: m[0] });
    blank(m.index, m.index + m[0].length);
  }
  return { periods, rest };
}

/** Words that point back at a time said before: "after that", "by then", "from then on", "at that point", "that day". */
const BACK_TO_A_TIME = /\b(?:after that|by then|from then on|at that (?:point|time)|that (?:day|date))\b/iu;

/**
 * The periods a question names, each as the days it covers: a day, a whole month, a season or a
 * whole year, as precisely as it was said, and holidays by name. When the message asks something
 * (a sentence ending in "?"), only the asking sentences count: "is the lab open saturdays? it was
 * a few years ago" asks about now, and the past is context, unless the asking sentence points back at it.
 */
export function askedPeriods(message: string, asOf: IsoDate): AskedPeriod[] {
  const question = askingSentences(message);
  const { periods: anchored, rest } = anchoredPeriods(question, asOf, message);
  const own = plainPeriods(rest, asOf);
  // "The fee is going up in January. What will it be after that?", "I have an appointment on dec 24. What time do they
  // close that day, and are they open the day after that?": the asking sentence points back at a time the message said
  // before it, and asks about that.
  if (own.length === 0 && question !== message && BACK_TO_A_TIME.test(rest)) return [...periodsIn(message, asOf, message), ...anchored];
  return [...own, ...anchored];
}

/** The periods `text` names; `message` is the whole message it was taken from, what "that" and "the next day" point back into. */
function periodsIn(text: string, asOf: IsoDate, message: string): AskedPeriod[] {
  const { periods: anchored, rest } = anchoredPeriods(text, asOf, message);
  return [...plainPeriods(rest, asOf), ...anchored];
}

/** The periods a text names said on their own: seasons, what chrono reads, holidays by name. */
function plainPeriods(question: string, asOf: IsoDate): AskedPeriod[] {
  const reference = { instant: new Date(`${asOf}T12:00:00Z`), timezone: 'UTC' };
  const out: AskedPeriod[] = seasonPeriods(question, asOf);
  const habitual = habits(question);
  // A date said without its year ("on March 3", "this Saturday") is the next one: patients ask about visits ahead.
  for (const result of parser.parse(question, reference, { forwardDate: true })) {
    if (result.tags().has('result/relativeDate') && (DURATION.test(result.text) || UNITS_ONLY.test(result.text) || AGE_AFTER.test(question.slice(result.index + result.text.length)))) continue;
    // A weekday said as a habit is no day (the coming one is what chrono reads).
    if (habitual.some((h) => h.from <= result.index && result.index < h.to)) continue;
    const start = result.start;
    const [y, m, d] = [start.get('year') ?? 0, start.get('month') ?? 1, start.get('day') ?? 1];
    if (start.isCertain('day') || start.isCertain('weekday')) out.push({ text: result.text, from: iso(y, m, d), to: iso(y, m, d) });
    else if (start.isCertain('month')) {
      // A month said without its year is this one while it lasts ("the december flu day", asked in December).
      const year = !start.isCertain('year') && m === Number(asOf.slice(5, 7)) ? Number(asOf.slice(0, 4)) : y;
      out.push({ text: result.text, from: iso(year, m, 1), to: iso(year, m + 1, 0) });
    }
    else if (start.isCertain('year')) out.push({ text: result.text, from: iso(y, 1, 1), to: iso(y, 12, 31) });
    // A time of day alone ("at 8 am") names no other day.
  }
  // A period beyond the year 9999 ("7920Y" read as 7,920 years ahead) has no ISO day and is no visit a patient asks about.
  return [...out, ...holidayPeriods(question, asOf, out)].filter((p) => IsoDateSchema.safeParse(p.from).success && IsoDateSchema.safeParse(p.to).success);
}

/**
 * How many years to move a date stated with a weekday and without a year so that it falls on that weekday: none when
 * it does, else the next year, then the one before (candidate WY: "Friday, December 31" on a 2027 page, read forward
 * from December 2026, is 2027's); none when neither fits.
 */
function yearsToWeekday(start: chrono.ParsedComponents, day: IsoDate): number {
  const weekday = start.get('weekday');
  if (start.isCertain('year') || !start.isCertain('weekday') || weekday === null) return 0;
  return [0, 1, -1].find((years) => new Date(shiftDays(day, 0, years)).getUTCDay() === weekday) ?? 0;
}

/**
 * Calendar dates in a text (chrono's strict parser): "today" or "4 hours before" is not one; a weekday alone ("Saturday")
 * is recurring, not a date. A date without a year is read forward from the asking day, unless the weekday stated with it
 * fixes another year.
 */
function calendarDates(text: string, asOf: IsoDate): AskedPeriod[] {
  const reference = { instant: new Date(`${asOf}T12:00:00Z`), timezone: 'UTC' };
  return chrono.strict.parse(text, reference, { forwardDate: true }).flatMap((r) => {
    if (!(r.start.isCertain('day') && r.start.isCertain('month')) || r.tags().has('result/relativeDate')) return [];
    const day = (c: chrono.ParsedComponents): IsoDate => iso(c.get('year') ?? 0, c.get('month') ?? 1, c.get('day') ?? 1);
    const [from, to] = [day(r.start), day(r.end ?? r.start)];
    const years = yearsToWeekday(r.start, from);
    return [{ text: r.text, from: shiftDays(from, 0, years), to: shiftDays(to, 0, years) }];
  });
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const ordinal = (n: number): string => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/**
 * The words a page states a day with, each phrase to be found word by word (in any order, as a search's terms): its
 * month, in full or in three letters ("sept" too), with its day number or ordinal ("December 24", "Dec 24th", "24
 * December"); and the name of each holiday falling on it, as a page names it (the calendar's name without a trailing
 * "Day" where people leave it out: "Christmas Eve", "Thanksgiving"). An observed (substitute) day is not the holiday's.
 */
export function dayPhrases(day: IsoDate): string[] {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  const name = MONTHS[month - 1] ?? '';
  const months = [name, name.slice(0, 3), ...(name === 'september' ? ['sept'] : [])];
  const dates = [String(date), ordinal(date)];
  const holidays = HOLIDAY_SAYINGS.filter(({ key }) => holidayDate(key, year) === day).map(({ core }) => core);
  return [...months.flatMap((m) => dates.map((d) => `${m} ${d}`)), ...holidays];
}

/** The calendar dates and holidays a text names, remembered: a page that names days is read for each question about one. */
const statedInText = boundedMemo<readonly AskedPeriod[]>(2_000);

/**
 * Whether a text (a passage) states the day: a calendar date or a holiday it names falls on it, read as a unit's are
 * (chrono's strict parser; the holidays by name, the nearest to the asking day), so "24 hours" or a December 24 of
 * another year does not.
 */
export function statesDay(text: string, day: IsoDate, asOf: IsoDate): boolean {
  const stated = statedInText(`${asOf}\u0000${text}`, () => [...calendarDates(text, asOf), ...holidayPeriods(text, asOf, [])]);
  return stated.some((s) => s.from <= day && day <= s.to);
}

/** The days a unit names: a table row's date and holiday cells; a sentence's calendar dates and holidays, apart. */
interface NamedDays {
  readonly dates: readonly AskedPeriod[];
  readonly holidays: readonly AskedPeriod[];
}

function namedDays(unit: Unit, asOf: IsoDate): NamedDays {
  if (unit.kind !== 'row') return { dates: calendarDates(unit.text, asOf), holidays: holidayPeriods(unit.text, asOf, []) };
  const cells = unit.text.split('; ').flatMap((cell) => {
    const value = cell.slice(cell.indexOf(': ') + 2);
    return [...calendarDates(value, asOf), ...holidayPeriods(value, asOf, [])];
  });
  return { dates: cells, holidays: [] };
}

/** namedDays, remembered: passages come back question after question, and parsing dates is most of the checks' cost. */
const named = boundedMemo<NamedDays>(20_000);
const namedDaysOf = (unit: Unit, asOf: IsoDate): NamedDays => named(`${asOf}\u0000${unit.kind}\u0000${unit.text}`, () => namedDays(unit, asOf));

/**
 * The calendar days a unit is about, to set it aside. A table row: its cells that name a date ("Thursday,
 * December 24, 2026", "Dec 24 – Jan 1") or a holiday ("New Year's Eve"). A sentence, list item or FAQ
 * answer: the holidays it names ("the scheduling line is closed on Thanksgiving, Christmas Day and New
 * Year's Day"), when it names no calendar date; a sentence with a date may be about when a rule takes
 * effect, which is the revision checks' business, not a day the rule is about.
 */
function statedDays(unit: Unit, asOf: IsoDate): readonly AskedPeriod[] {
  const { dates, holidays } = namedDaysOf(unit, asOf);
  return dates.length > 0 && unit.kind !== 'row' ? [] : [...dates, ...holidays];
}

const overlapsAsked = (stated: readonly AskedPeriod[], periods: readonly AskedPeriod[]): boolean => stated.some((s) => periods.some((p) => s.from <= p.to && p.from <= s.to));

/**
 * Whether a unit is about the very days the question asks about: each asked period lies inside a day
 * or span it states (a row's date or holiday cell, a date or holiday a sentence names): "Date:
 * Thursday, December 24, 2026; …" for "christmas eve", not one day of November for "in november".
 */
export function namesAskedDay(unit: Unit, periods: readonly AskedPeriod[], asOf: IsoDate): boolean {
  if (periods.length === 0) return false;
  const days = everyNamedDay(unit, asOf);
  return periods.every((p) => days.some((s) => s.from <= p.from && p.to <= s.to));
}

/**
 * Every day or span a unit names, its dates and holidays alike: a sentence's date counts here, since a date is no reason to
 * set a unit aside, but one naming the very day asked ("All clinics are closed on Monday, January 18, 2027.") is about it.
 */
function everyNamedDay(unit: Unit, asOf: IsoDate): readonly AskedPeriod[] {
  const { dates, holidays } = namedDaysOf(unit, asOf);
  return [...dates, ...holidays];
}

/**
 * Whether a unit states each single day asked as a day of its own (a date or a holiday it names whose span is that one
 * day), not only inside a span that contains it: a closure on Monday, January 18, not a season from September to March.
 */
export function namesAskedDayAlone(unit: Unit, periods: readonly AskedPeriod[], asOf: IsoDate): boolean {
  const days = everyNamedDay(unit, asOf);
  return namesAskedDay(unit, periods, asOf) && periods.every((p) => p.from !== p.to || days.some((d) => d.from === p.from && d.to === p.to));
}

/**
 * Why a unit cannot answer for the days asked, or null: it is about other calendar days than any
 * asked ("Date: December 31 (New Year's Eve)", or "closed on Thanksgiving and Christmas Day", for a
 * question about Christmas Eve); or it is about particular days and the question asks about a weekday
 * as a habit and names no single day ("Date: January 1, 2027; …" for "open on sundays in january?":
 * one day's exception is not the rule of every Sunday). A unit naming no day, or a question naming
 * no period and no habit, is left to the judge.
 */
export function dayExclusion(unit: Unit, periods: readonly AskedPeriod[], habitual: readonly string[], asOf: IsoDate): string | null {
  if (periods.length === 0 && habitual.length === 0) return null;
  const stated = statedDays(unit, asOf);
  if (stated.length === 0) return null;
  const span = (p: AskedPeriod): string => (p.from === p.to ? p.from : `${p.from}..${p.to}`);
  const about = `about ${stated.map(span).join(', ')}`;
  if (habitual.length > 0 && !periods.some((p) => p.from === p.to)) return `${about}; asked about every ${habitual.join(', ')}`;
  if (periods.length === 0 || overlapsAsked(stated, periods)) return null;
  return `${about}; asked about ${periods.map((p) => `${span(p)} ("${p.text}")`).join(', ')}`;
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
