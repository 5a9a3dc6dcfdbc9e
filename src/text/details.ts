import { stem } from './tokens.js';

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
  /** Question words the detail term replaces, so they are not counted twice (compared stemmed). */
  readonly cues: readonly string[];
}

const DETAILS: readonly DetailRule[] = [
  {
    term: '#time',
    asked: /\b(?:what time|until when|until what|how late(?! (?:can|may|could) (?:i|we|you)\b)|what hours|open(?:ing)? times?)\b|(?<!\d )\bhours\b|(?<!how )\bclos(?:e|es|ing)\b|\bhow early (?:does|do|is|are) (?:the )?\w+(?: \w+)? open\b/u,
    stated: /\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\bnoon\b|\bmidnight\b|\b24 hours a day\b/u,
    cues: ['time', 'until', 'hour', 'open', 'close', 'stop', 'start'],
  },
  {
    term: '#day',
    asked: /\b(?:what|which) days?\b|\bweekends?\b|\bweekdays?\b|\bsaturdays?\b|\bsundays?\b/u,
    stated: /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|daily)s?\b/u,
    cues: ['day', 'weekday', 'open'],
  },
  {
    term: '#fee',
    asked: /\bhow much(?! (?:notice|time|advance|earlier|later|longer|sooner))\b|\bcosts?\b|\bprices?\b|\bcharged?\b|\bfree\b|\b(?:have|need) to pay\b|\bpay for\b|\bis there (?:a|any) (?:fee|charge)\b|\bcharge for\b|\bcost extra\b|\bwithout paying\b|\bfor free\b|\bfree of charge\b/u,
    stated: /\$\s?\d|\bfree\b|\bno (?:charge|cost|fee)\b|\bat no cost\b|\bcopay\b|\bbilled to (?:your )?insurance\b/u,
    cues: ['much', 'cost', 'price', 'charge', 'pay', 'paying', 'fee', 'extra', 'without'],
  },
  {
    term: '#phone',
    asked: /\bphone (?:number|numbr|no\b|#|line)|\b(?:the|a|your) phone (?:for|to|of)\b|\bnumber (?:to call|for)\b|\b(?:what|which) number\b|\bwhat(?:'s| is) the number\b|\bwho (?:do|should|can) i call\b|\bhow (?:do|can) i (?:call|reach|phone)\b/u,
    stated: /\b\d{3}-\d{4}\b/u,
    cues: ['phone', 'number', 'numbr'],
  },
  {
    term: '#lead',
    asked: /\bhow (?:far|long|soon|close|many (?:hours|days|minutes|weeks))\b|\bhow late (?:can|may|could) (?:i|we|you)\b|\bhow early (?:should|do|must|can)\b|\bin advance\b|\bahead\b|\bnotice\b/u,
    stated: /\b\d+[\s-]?(?:hours?|days?|minutes?|weeks?|months?|business days?)\b|\b(?:one|two|three|four|five|ten|fifteen|twenty-four|48|24) (?:hours?|days?|minutes?|weeks?)\b/u,
    cues: ['far', 'long', 'soon', 'close', 'early', 'late', 'advance', 'ahead', 'notice'],
  },
  {
    term: '#address',
    asked: /\b(?:street )?address\b|\bwhere (?:is|are) (?:the |your )?(?:\w+ )?(?:clinic|office|building|lab)\b|\bhow do i get to\b/u,
    stated: /\b\d+ (?:[a-z]+ )+(?:street|st|avenue|ave|road|rd|boulevard|blvd|drive|dr|way|lane|ln)\b|\bsuite \d+\b|\b(?:first|second|third|ground) floor\b/u,
    cues: ['address', 'street'],
  },
  {
    term: '#count',
    asked: /\bhow many times\b|\bhow often\b/u,
    stated: /\b(?:\d+|one|two|three|four|five) times?\b|\bonce\b|\btwice\b/u,
    cues: ['many', 'often'],
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
  return new Set(DETAILS.filter((d) => asked.has(d.term)).flatMap((d) => d.cues.map(stem)));
}

/** The values of one kind of detail a sentence states ("7 am", "$40", "555-0142"), normalized for comparison. */
export function detailValues(term: string, sentence: string): string[] {
  const rule = DETAILS.find((d) => d.term === term);
  if (rule === undefined) return [];
  const global = new RegExp(rule.stated.source, 'gu');
  return [...sentence.toLowerCase().matchAll(global)].map((m) => m[0].replace(/\s+/gu, ' ').trim());
}
