/**
 * The days of the week a text names, so that a rule for weekdays is not taken as the answer for
 * a Saturday. "Monday through Friday", "Monday to Saturday" and "Monday-Friday" are ranges;
 * "weekdays" and "weekends" are the days they cover; "daily" and "every day" are all seven.
 * Holidays are not days of the week and are not read here.
 */
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof DAYS)[number];

const NAME = `(${DAYS.join('|')})s?`;
const RANGE = new RegExp(String.raw`\b${NAME}\s*(?:through|thru|to|until|till|-|–|—)\s*${NAME}\b`, 'gu');
const SINGLE = new RegExp(String.raw`\b${NAME}\b`, 'gu');
const WEEKDAYS = /\bweek\s?days?\b/u;
const WEEKENDS = /\bweek\s?ends?\b/u;
const EVERY_DAY = /\bdaily\b|\bevery day\b|\b(?:7|seven) days a week\b/u;

const indexOf = (day: string): number => DAYS.indexOf(day as Weekday);

export function daysNamed(text: string): ReadonlySet<Weekday> {
  const t = text.toLowerCase();
  const days = new Set<Weekday>();
  if (EVERY_DAY.test(t)) return new Set(DAYS);
  if (WEEKDAYS.test(t)) for (const d of DAYS.slice(0, 5)) days.add(d);
  if (WEEKENDS.test(t)) for (const d of DAYS.slice(5)) days.add(d);
  const rest = t.replace(RANGE, (_m, from: string, to: string) => {
    // A range wraps past Sunday ("Friday through Monday") like a calendar does.
    for (let i = indexOf(from); ; i = (i + 1) % DAYS.length) {
      days.add(DAYS[i] as Weekday);
      if (i === indexOf(to)) break;
    }
    return ' ';
  });
  for (const m of rest.matchAll(SINGLE)) days.add(m[1] as Weekday);
  return days;
}
