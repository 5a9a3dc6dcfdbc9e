/**
 * The kind of detail a question asks for (a time, a day, a fee, a phone number, a lead time) and
 * the kinds a sentence states. A sentence that gives a time answers "until what time" even when it
 * shares none of those words; one that gives no time does not, however many words it shares.
 * Each detail becomes a pseudo-term ("#time") next to the content words.
 */
interface DetailRule {
  readonly term: string;
  readonly asked: RegExp;
  readonly stated: RegExp;
  /** Question words the detail term replaces, so they are not counted twice. */
  readonly cues: readonly string[];
}

const DETAILS: readonly DetailRule[] = [
  {
    term: '#time',
    asked: /\b(?:what time|until when|until what|how late|how early|what hours|hours|open(?:ing)? times?|close|closing)\b/u,
    stated: /\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\bnoon\b|\bmidnight\b|\b24 hours a day\b/u,
    cues: ['time', 'until'],
  },
  {
    term: '#day',
    asked: /\b(?:what|which) days?\b|\bweekends?\b|\bsaturdays?\b|\bsundays?\b|\bopen on\b/u,
    stated: /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|daily)s?\b/u,
    cues: ['day'],
  },
  {
    term: '#fee',
    asked: /\bhow much\b|\bcosts?\b|\bfees?\b|\bprices?\b|\bcharged?\b|\bfree\b/u,
    stated: /\$\s?\d|\bfree\b|\bno (?:charge|cost|fee)\b|\bat no cost\b/u,
    cues: ['much', 'cost', 'price', 'charge'],
  },
  {
    term: '#phone',
    asked: /\bphone\b|\bnumber to call\b|\bwhat number\b|\bwho (?:do|should) i call\b/u,
    stated: /\b\d{3}-\d{4}\b/u,
    cues: ['phone', 'number'],
  },
  {
    term: '#lead',
    asked: /\bhow (?:far|long|soon|many (?:hours|days|minutes|weeks))\b|\bin advance\b|\bahead\b|\bnotice\b/u,
    stated: /\b\d+\s?(?:hours?|days?|minutes?|weeks?|business days?)\b|\b(?:one|two|three|four|five|ten|fifteen|twenty-four|48|24) (?:hours?|days?|minutes?|weeks?)\b/u,
    cues: ['far', 'long', 'soon', 'advance', 'ahead'],
  },
];

export function askedDetails(question: string): ReadonlySet<string> {
  const q = question.toLowerCase();
  return new Set(DETAILS.filter((d) => d.asked.test(q)).map((d) => d.term));
}

export function statedDetails(sentence: string): ReadonlySet<string> {
  const s = sentence.toLowerCase();
  return new Set(DETAILS.filter((d) => d.stated.test(s)).map((d) => d.term));
}

/** Question words a detected detail already stands for. */
export function detailCues(asked: ReadonlySet<string>): ReadonlySet<string> {
  return new Set(DETAILS.filter((d) => asked.has(d.term)).flatMap((d) => d.cues));
}
