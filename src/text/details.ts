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
