/** A North American phone number as people write it, with or without its area code ("555-0142", "(503) 555-0142", "+1 503.555.0142"). */
export const PHONE_NUMBER = /(?<![\d-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])?\d{3}[\s.-]\d{4}\b/gu;

/**
 * Typed values a policy text states: times, days, fees, phone numbers, lead times, addresses,
 * counts. Two units that both answer a question and state different values of one kind disagree
 * (see the conflict check); the values are extracted, never interpreted.
 */
const DETAILS: ReadonlyMap<string, RegExp> = new Map([
  ['#time', /\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\bnoon\b|\bmidnight\b|\b24 hours a day\b/gu],
  ['#day', /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|daily)s?\b/gu],
  ['#fee', /\$\s?\d|\bfree\b|\bno (?:charge|cost|fee)\b|\bat no cost\b|\bcopay\b|\bbilled to (?:your )?insurance\b/gu],
  ['#phone', /\b\d{3}-\d{4}\b/gu],
  ['#lead', /\b\d+[\s-]?(?:hours?|days?|minutes?|weeks?|months?|business days?)\b|\b(?:one|two|three|four|five|ten|fifteen|twenty-four|48|24) (?:hours?|days?|minutes?|weeks?)\b/gu],
  ['#address', /\b\d+ (?:[a-z]+ )+(?:street|st|avenue|ave|road|rd|boulevard|blvd|drive|dr|way|lane|ln)\b|\bsuite \d+\b|\b(?:first|second|third|ground) floor\b/gu],
  ['#count', /\b(?:\d+|one|two|three|four|five) times?\b|\bonce\b|\btwice\b/gu],
]);

/** The values of one kind of detail a text states ("7 am", "$40", "555-0142"), normalized for comparison. */
function detailValues(kind: string, text: string): string[] {
  const rule = DETAILS.get(kind);
  if (rule === undefined) return [];
  return [...text.toLowerCase().matchAll(rule)].map((m) => m[0].replace(/\s+/gu, ' ').trim());
}

/** Every detail value a text states, by kind ("#time" -> ["7 am", "4 pm"]); kinds it states none of are absent. */
export function statedValues(text: string): ReadonlyMap<string, readonly string[]> {
  return new Map([...DETAILS.keys()].map((kind) => [kind, detailValues(kind, text)] as const).filter(([, values]) => values.length > 0));
}

/** What may stand between two values of one statement: "Monday through Friday, 8 am to 5 pm". */
const CONNECTOR = /^[\s,\-–—]*(?:(?:to|through|thru|until|till|and|or|from)[\s,\-–—]*)?$/u;

/** Text as value runs are compared: plain, lower case, and one spelling of a range ("between 8 am and 5 pm", "8 am to 5 pm", "8 am–5 pm"). */
const flat = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[*_`|#>]/gu, ' ')
    .replace(/\bbetween\s+([^,.;]{1,25}?)\s+and\s+/gu, 'between $1 to ')
    .replace(/\s*(?:[–—]|(?<!\d)-|-(?!\d)|\b(?:to|through|thru|until|till)\b)\s*/gu, ' - ')
    .replace(/\s+/gu, ' ')
    .replace(/\s+([,.;:])/gu, '$1')
    .trim();

/**
 * The value statements of a text: runs of two or more values (days, times, fees, phone numbers,
 * lead times) joined only by connectors ("monday through friday, 8 am to 5 pm"), as plain
 * lower-case text. A sentence that binds values together states a fact only if its source binds
 * them the same way: "Monday through Friday, 8 am to 11:30 am" is not stated by "Monday through
 * Friday, 8 am to 5 pm, and Saturday, 8 am to 11:30 am", although every word of it is.
 */
export function valueRuns(text: string): string[] {
  const lower = flat(text);
  const spans = ['#time', '#day', '#fee', '#phone', '#lead']
    .flatMap((kind) => [...lower.matchAll(DETAILS.get(kind) ?? /$^/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length })))
    .sort((a, b) => a.start - b.start || b.end - a.end)
    .filter((s, i, all) => i === 0 || s.start >= (all[i - 1]?.end ?? 0));
  const runs: { start: number; end: number; values: number }[] = [];
  for (const span of spans) {
    const last = runs.at(-1);
    if (last !== undefined && CONNECTOR.test(lower.slice(last.end, span.start))) {
      last.end = span.end;
      last.values += 1;
    } else runs.push({ start: span.start, end: span.end, values: 1 });
  }
  return runs.filter((r) => r.values >= 2).map((r) => lower.slice(r.start, r.end));
}

/** Whether `source` states each value run of `sentence` as it stands there. */
export function bindsValuesAs(sentence: string, source: string): boolean {
  const runs = valueRuns(sentence);
  if (runs.length === 0) return true;
  const stated = flat(source);
  return runs.every((run) => stated.includes(run));
}
