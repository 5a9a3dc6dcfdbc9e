import { createRequire } from 'node:module';
import type Compromise from 'compromise';
import { namesPattern, PHONE_NUMBER } from '../text/index.js';

// compromise's ESM entry is some 440 modules; its CommonJS entry is one bundled file of the same
// release and loads in half the time (about 150 ms less at every CLI start that answers).
const nlp = createRequire(import.meta.url)('compromise') as typeof Compromise;

/**
 * Redaction before persistence: identifiers in a question become typed placeholders in the stored
 * trace; the pipeline answers from the original, which stays in memory. Person names come from
 * compromise's named-entity tagger (a maintained NLP library); the structured identifiers a
 * scheduling question carries (phones, emails, dates of birth, record and member numbers, SSNs,
 * street addresses) from the domain patterns below, which run first.
 */
export type IdentifierType = 'EMAIL' | 'SSN' | 'PHONE' | 'DOB' | 'DATE' | 'MRN' | 'MEMBER_ID' | 'ADDRESS' | 'ID' | 'NAME';

const STREET = '(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|circle|cir|parkway|pkwy|highway|hwy)';
const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const NUMERIC_DATE = String.raw`(?:\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)?\d{2}|(?:19|20)\d{2}-\d{2}-\d{2})`;
const WORD_DATE = String.raw`(?:${MONTH}\.? \d{1,2}(?:st|nd|rd|th)?,? (?:19|20)\d{2}|\d{1,2}(?:st|nd|rd|th)? (?:of )?${MONTH},? (?:19|20)\d{2})`;
const ANY_DATE = `(?:${NUMERIC_DATE}|${WORD_DATE})`;

const PATTERNS: readonly (readonly [IdentifierType, RegExp])[] = [
  ['EMAIL', /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/giu],
  ['SSN', /\b\d{3}[- ]\d{2}[- ]\d{4}\b|\b(?<=(?:ssn|social security(?: number)?)\D{0,15})\d{9}\b/giu],
  ['DOB', new RegExp(String.raw`(?<=\b(?:dob|d\.o\.b\.?|date of birth|birth ?date|birthday|born(?: on| in)?)\b(?: is| was| on)?\W{0,15})${ANY_DATE}`, 'giu')],
  ['MRN', /(?<=\b(?:mrn|medical record(?: number| no\.?| #)?|record(?: number| no\.?| #)|chart(?: number| #)?|patient (?:id|number))(?: is)?\W{0,15})[a-z]{0,3}-?\d[\w-]{3,}\b/giu],
  // A member number as printed on a card, in groups ("BCX 4471 9022").
  ['MEMBER_ID', /(?<=\b(?:member(?: id| number| #)?|insurance(?: card)?(?: id| number| no\.?| #| says| reads| is)|card(?: number| no\.?| #| says| reads)|policy(?: number| #)?|subscriber(?: id)?|group(?: number| #))(?: is)?\W{0,15})[a-z]{0,4}[ -]?\d[\w-]{3,}(?:[ -]\d{3,})*\b/giu],
  ['ADDRESS', new RegExp(String.raw`\b\d{1,6} (?:[nsew]\.? )?(?:[a-z0-9'.-]+ ){1,4}${STREET}\b\.?(?:,? (?:apt|apartment|unit|suite|#) ?[\w-]+)?`, 'giu')],
  ['ADDRESS', /\b(?:p\.?\s?o\.?\s?box|post office box|pmb|private mailbox)\s*#?\s*\d[\w-]*/giu],
  // A house number and the words after it, where the question says it is an address (street types outside STREET: "9 Quarry Hill", "77 Cedar Hollow").
  ['ADDRESS', /(?<=\b(?:address(?: is)?|live at|lives at|living at|moved to|(?:send|mail|ship|deliver)(?: it| them| this| the bill| my records| the letter)? to)\W{0,20}(?:\[ADDRESS\],? )?)\d{1,6}(?: [\p{L}'’.-]+){1,3}?(?=,|[.?!;]|$| (?:apt|unit|suite|#|which|where|what|is|and|please)\b)/giu],
  ['PHONE', PHONE_NUMBER],
  ['DATE', new RegExp(String.raw`\b${ANY_DATE}\b`, 'giu')],
  ['ID', /\b(?=[a-z]*\d)[a-z\d]{7,}\b/giu],
];

const NAME_WORD = String.raw`\p{Lu}[\p{L}'’-]+`;
const FULL_NAME = `${NAME_WORD}(?: ${NAME_WORD}){0,3}`;
const RELATION = '(?:wife|husband|partner|spouse|son|daughter|child|kid|baby|mom|mother|mum|dad|father|grandma|grandmother|grandpa|grandfather|brother|sister|aunt|uncle|friend|patient|boy|girl|niece|nephew)';
/** Capitalized names after the words that introduce a person ("my son Jacob Miller", "its under Wei Zhang"). */
const NAME_CUES: readonly RegExp[] = [
  new RegExp(String.raw`(?<=\b(?:my|our|his|her) ${RELATION}(?:'s)?,? )${FULL_NAME}`, 'gu'),
  new RegExp(String.raw`(?<=\b(?:[Ii]'?m|I am|[Tt]his is|[Ii]t'?s|[Uu]nder|[Ff]or|[Hh]older|[Pp]atient|[Nn]amed|[Cc]alled|[Aa]bout)\s)${FULL_NAME}`, 'gu'),
  /(?<=\b(?:my |his |her |the )?name is )[\p{L}'’-]+(?: [\p{L}'’-]+){0,2}/giu,
];
/** Words that introduce the person who writes or is written about ("i'm", "this is", "my name is", "my son"). */
const INTRODUCER = String.raw`i'?m|i am|this is|it'?s|its|name is|name's|named|called|(?:my|our|his|her) ${RELATION}(?:'s)?`;
/** Words before a date of birth. */
const BIRTH_WORD = 'birthday|born|dob|birthdate';
/** Words that introduce a person, right before a single lower-case word the tagger reads as a name. */
const PERSON_BEFORE = new RegExp(String.raw`\b(?:${INTRODUCER}|patient),? $`, 'iu');
/** Nouns the tagger's lexicon also lists as a first name, as they come in lower case ("my buddy's leg"). */
const LOWER_CASE_NOUNS = new Set(['buddy']);
/** A word after a determiner or a possessive ("the marina", "minha mãe") or a saint ("st john's wort") is not a person's name. */
const NOT_A_NAME_BEFORE = /(?:\b(?:the|a|an|my|our|your|his|her|their|minha|meu|mi|st\.?|saint)) $/iu;

/** A single lower-case word the tagger read as a person: a man's or woman's first name, or any name right after a word that introduces a person. */
function lowerCaseName(p: { readonly text: string; readonly tags: ReadonlySet<string> }, before: string): boolean {
  if (PERSON_BEFORE.test(before)) return true;
  return (p.tags.has('MaleName') || p.tags.has('FemaleName')) && !LOWER_CASE_NOUNS.has(p.text.replace(/\W+$/u, '').toLowerCase()) && !NOT_A_NAME_BEFORE.test(before);
}

interface TaggedTerm {
  readonly text: string;
  readonly normal: string;
  readonly tags: ReadonlySet<string>;
  readonly start: number;
  readonly end: number;
}

type Reader = (text: string) => ReturnType<typeof nlp>;

/**
 * compromise's reading of a text, for one redaction: it asks for the words and then the people of a
 * text that mostly has not changed in between (nothing replaced), so one parse serves both. Kept for
 * the call only, so no question outlives its redaction here.
 */
function reader(): Reader {
  let last: { readonly text: string; readonly doc: ReturnType<typeof nlp> } | null = null;
  return (text) => {
    if (last?.text !== text) last = { text, doc: nlp(text) };
    return last.doc;
  };
}

/** The question's words as compromise's tagger reads them, with their offsets. */
function taggedTerms(read: Reader, text: string): TaggedTerm[] {
  const terms = (read(text).json({ offset: true, terms: { offset: true } }) as { terms: { text: string; normal: string; tags: string[]; offset: { start: number; length: number } }[] }[]).flatMap((s) => s.terms);
  return terms.filter((w) => w.text !== '').map((w) => ({ text: w.text, normal: w.normal, tags: new Set(w.tags), start: w.offset.start, end: w.offset.start + w.offset.length }));
}

const LEXICON = (nlp.model() as { readonly one: { readonly lexicon: Readonly<Record<string, string | readonly string[] | undefined>> } }).one.lexicon;
const NAME_TAGS: ReadonlySet<string> = new Set(['FirstName', 'LastName', 'MaleName', 'FemaleName', 'Person']);
/** Tags of words that never begin or continue a person's name in a sentence. */
const NOT_NAME_TAGS = ['Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Adjective', 'Value', 'Date', 'QuestionWord', 'Possessive', 'Copula', 'Modal', 'Auxiliary', 'Negative', 'Adverb', 'Plural', 'Acronym'];

/** A lexicon entry (a tag, or several) with one of `tags`. */
const tagged = (entry: string | readonly string[] | undefined, tags: ReadonlySet<string>): boolean => entry !== undefined && (typeof entry === 'string' ? [entry] : entry).some((tag) => tags.has(tag));

/** A word the tagger's lexicon lists as a name, or does not list: of a lower-case run ("doctor who", "first baby"), only these may be a person's. */
const nameOrUnknown = (w: { readonly normal: string }): boolean => {
  const known = LEXICON[w.normal];
  return known === undefined || tagged(known, NAME_TAGS);
};

/** A word, in any case, the tagger's lexicon does not know as an ordinary word: unknown, or known only as a name. */
const unknownWord = (w: TaggedTerm): boolean =>
  /^\p{L}[\p{L}'’-]+$/u.test(w.text.replace(/[,.;:!?]+$/u, '')) && nameOrUnknown(w) && !NOT_NAME_TAGS.some((tag) => w.tags.has(tag));

const INTRO_BEFORE = new RegExp(String.raw`\b(?:${INTRODUCER}),?\s*$`, 'iu');
/** Words that ask about a person as the subject ("can … book", "does … need"). */
const SUBJECT_BEFORE = new Set(['can', 'could', 'may', 'will', 'would', 'should', 'does', 'did', 'do']);

/**
 * Names written in lower case that the tagger's lexicon does not know ("i'm priya raman", "can
 * anneliese vandermeer book a visit"): two words or more unknown to the lexicon, where a sentence
 * puts a person (after the words that introduce one, or as the subject between a modal and its
 * verb). Typed by the tagger: an adjective, a plural or a known word ends the run ("can physical
 * therapy …", "can flu shots …").
 */
function lowerCaseNameSpans(text: string, terms: readonly TaggedTerm[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i];
    if (term === undefined) continue;
    const intro = INTRO_BEFORE.test(text.slice(Math.max(0, term.start - 30), term.start));
    const subject = SUBJECT_BEFORE.has(terms[i - 1]?.normal ?? '');
    if (!intro && !subject) continue;
    let j = i;
    while (j < terms.length && j - i < 3 && unknownWord(terms[j] as TaggedTerm) && !/[,.;:!?]$/u.test(terms[j - 1]?.text ?? '')) j++;
    const last = terms[j - 1];
    // A subject needs its verb after it; a run of one unknown word is too often a misspelling.
    if (j - i < 2 || last === undefined || (subject && !intro && terms[j]?.tags.has('Verb') !== true)) continue;
    spans.push({ start: term.start, end: last.start + last.text.replace(/[,.;:!?]+$/u, '').length });
    i = j - 1;
  }
  return spans;
}

const BIRTH_TERM = new RegExp(`^(?:${BIRTH_WORD})$`, 'u');

/** A date of birth in words ("my birthday is march third 1961"): the tagger's date right after a birth cue. */
function birthDateSpans(terms: readonly TaggedTerm[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (let i = 0; i < terms.length; i++) {
    if (!BIRTH_TERM.test(terms[i]?.normal ?? '')) continue;
    let j = i + 1;
    while (/^(?:is|was|on|in|date)$/u.test(terms[j]?.normal ?? '')) j++;
    let k = j;
    while (terms[k]?.tags.has('Date') === true || (k > j && terms[k]?.tags.has('Value') === true)) k++;
    const last = terms[k - 1];
    if (k > j && last !== undefined) spans.push({ start: terms[j]?.start ?? 0, end: last.start + last.text.replace(/[,.;:!?]+$/u, '').length });
  }
  return spans;
}

/** A word's forms as the tagger's lexicon may list it: lower case, accents folded ("lúc" is "luc"), with and without a possessive or an apostrophe. */
const lexiconForms = (word: string): string[] => {
  const w = word.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
  return [w, w.replace(/['’]s$/u, ''), w.replace(/['’]/gu, '')];
};
/** Names, and the titles that begin one ("dr", "mrs"). */
const NAME_OR_TITLE_TAGS: ReadonlySet<string> = new Set([...NAME_TAGS, 'Honorific']);
const lexiconName = (word: string): boolean => lexiconForms(word).some((f) => tagged(LEXICON[f], NAME_OR_TITLE_TAGS));
const lexiconUnknown = (word: string): boolean => lexiconForms(word).some((f) => LEXICON[f] === undefined || tagged(LEXICON[f], NAME_OR_TITLE_TAGS));
/** Words after which the tagger's passes look for a birth date. */
const BIRTH_CUE = new RegExp(String.raw`\b(?:${BIRTH_WORD})\b`, 'iu');
/** Words that introduce a person (INTRO_BEFORE, PERSON_BEFORE), and the word after them. */
const PERSON_CUE = new RegExp(String.raw`\b(?:${INTRODUCER}|patient),?\s+([\p{L}'’-]+)`, 'giu');
/** The pronoun "I" and its contractions: capitalized, never a name. */
const FIRST_PERSON = /^I(?:['’](?:m|ve|ll|d))?$/u;

/**
 * Whether compromise's tagger can find anything the redactor would replace in `text` (kept names hidden, structured
 * identifiers already replaced). Each pass that reads the tagger needs one of: a capital letter other than "I" or a
 * lexicon word beginning a sentence; a word the tagger's lexicon lists as a name or a title; a birth cue; a word that
 * introduces a person before one the lexicon does not know as an ordinary word; two such words after a modal (the
 * lower-case names of `lowerCaseNameSpans`). A question with none (most questions) skips the tagger, about 1.7 of the
 * 1.8 ms its analysis took (bench/question-analysis.ts).
 */
export function mayNameAPerson(text: string): boolean {
  if (BIRTH_CUE.test(text)) return true;
  // After a word that introduces a person, the tagger's passes read a name only where the next word may begin one.
  for (const m of text.matchAll(PERSON_CUE)) if (lexiconUnknown(m[1] ?? '')) return true;
  for (const m of text.replace(/\[[A-Z_]+\]/gu, ' ').matchAll(/[\p{L}'’-]*\p{Lu}[\p{L}'’-]*/gu)) {
    const word = m[0];
    if (FIRST_PERSON.test(word)) continue;
    const sentenceStart = /(?:^|[.!?])\s*$/u.test(text.slice(0, m.index));
    if (!sentenceStart || lexiconUnknown(word)) return true;
  }
  const words = text.split(/[^\p{L}\p{N}'’]+/u).filter((w) => w !== '');
  return words.some((w, i) => lexiconName(w) || (SUBJECT_BEFORE.has(w.toLowerCase()) && words[i + 1] !== undefined && words[i + 2] !== undefined && lexiconUnknown(words[i + 1] as string) && lexiconUnknown(words[i + 2] as string)));
}

/** Replace spans of `text` (not overlapping) with a placeholder, last first so offsets hold. */
function replaceSpans(text: string, spans: readonly { start: number; end: number }[], type: IdentifierType, counts: Partial<Record<IdentifierType, number>>): string {
  let out = text;
  for (const s of [...spans].sort((a, b) => b.start - a.start)) {
    out = `${out.slice(0, s.start)}[${type}]${out.slice(s.end)}`;
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return out;
}

/** Capitalized words that are not names: weekdays and months ("mid-March"), titles, scan types. The deployment's own names come with `keep`. */
const COMMON_CAPITALIZED = new Set([
  'I', 'Health', 'Clinic', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'Dr', 'MRI', 'CT',
  'January', 'February', 'March', 'April', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
]);
const common = (span: string): boolean => span.split(/[\s-]+/u).every((w) => COMMON_CAPITALIZED.has(w.replace(/[^\p{L}]/gu, '')));

/** A private-use mark standing for the n-th kept name while names are looked for. */
const mark = (n: number): string => `\uE000${n.toString(36)}\uE001`;
const MARK = /\uE000([0-9a-z]+)\uE001/gu;

/**
 * Hides the deployment's own names (its organization, sites, services: `assistant.yaml`) behind
 * marks, so that "Fennwick Pavilion" is never taken for a person: redaction must not remove the
 * site a question is about. Compiled once per deployment.
 */
function keptNames(keep: readonly string[]): (text: string) => { text: string; kept: string[] } {
  const any = namesPattern(keep);
  if (any === null) return (text) => ({ text, kept: [] });
  return (text) => {
    const kept: string[] = [];
    return { text: text.replace(any, (m) => mark(kept.push(m) - 1)), kept };
  };
}

export interface Redaction {
  readonly text: string;
  /** How many identifiers of each type were replaced. */
  readonly counts: Readonly<Partial<Record<IdentifierType, number>>>;
}

/**
 * A date that is not a birth date keeps its year ("after [DATE] 2027"): the year alone identifies
 * no one (HIPAA Safe Harbor keeps years), and the question's period is read from what is stored.
 */
const placeholder = (type: IdentifierType, match: string): string => {
  const year = type === 'DATE' ? /(?<!\d)(?:19|20)\d{2}(?!\d)/u.exec(match)?.[0] : undefined;
  return year === undefined ? `[${type}]` : `[${type}] ${year}`;
};

/**
 * A redactor for one deployment; `keep`: its names (organization, entity aliases), never redacted as a person. `tagger:
 * 'always'` reads every question with the tagger, as before session 27: the reference the gate (`mayNameAPerson`) is
 * tested and benchmarked against.
 */
export function createRedactor(keep: readonly string[], options: { readonly tagger?: 'when-needed' | 'always' } = {}): (text: string) => Redaction {
  const hide = keptNames(keep);
  const always = options.tagger === 'always';
  return (text) => redactWith(text, hide, always);
}

/** Redaction with no deployment names to keep, or with `keep` compiled for this one call. */
export function redact(text: string, keep: readonly string[] = []): Redaction {
  return createRedactor(keep)(text);
}

/**
 * The people the tagger finds in `out`, last first, that are names: the tagger's single lower-case or sentence-initial
 * words ("bill", "Grace period") are too often ordinary words, unless its lexicon knows the word only as a man's or
 * woman's first name ("its jake", "emma"), or a word that introduces a person stands before it ("my son nick", "this is sue").
 */
function peopleIn(read: Reader, out: string): { readonly start: number; readonly end: number }[] {
  return (read(out).people().json({ offset: true }) as { offset: { start: number; length: number }; text: string; terms: { tags: string[]; normal: string }[] }[])
    .map((p) => ({ start: p.offset.start, end: p.offset.start + p.offset.length, text: p.text.replace(/[\s,.;:!?–—-]+$/u, '').trim(), tags: new Set(p.terms.flatMap((t) => t.tags)), words: p.terms }))
    .filter((p) => !/\[[A-Z_]+\]|\uE000/u.test(p.text) && !common(p.text))
    // "Martin Luther King Jr. Day", "Columbus Day": a name before "Day" is a holiday, not a person.
    .filter((p) => !/^[\s.]*(?:jr\.?\s*)?day\b/iu.test(out.slice(p.end)))
    .filter(
      (p) =>
        (p.text.includes(' ') && (/\p{Lu}/u.test(p.text) || p.words.some(nameOrUnknown))) ||
        (/^\p{Lu}/u.test(p.text) && !/(?:^|[.!?]\s*)$/u.test(out.slice(0, p.start))) ||
        (/^\p{Ll}/u.test(p.text) && lowerCaseName(p, out.slice(Math.max(0, p.start - 40), p.start))),
    )
    .sort((a, b) => b.start - a.start);
}

function redactWith(text: string, hide: ReturnType<typeof keptNames>, alwaysTag: boolean): Redaction {
  const counts: Partial<Record<IdentifierType, number>> = {};
  // Structured identifiers first, in the text as written: a house number before a street the
  // policies name ("101 Birch Lane") is the patient's address. The kept names are hidden from the
  // name passes only.
  let structured = text;
  for (const [type, pattern] of PATTERNS) {
    structured = structured.replace(pattern, (match) => {
      counts[type] = (counts[type] ?? 0) + 1;
      return placeholder(type, match);
    });
  }
  const hidden = hide(structured);
  let out = hidden.text;
  const tagger = alwaysTag || mayNameAPerson(out);
  const read = reader();
  if (tagger) {
    out = replaceSpans(out, birthDateSpans(taggedTerms(read, out)), 'DOB', counts);
    out = replaceSpans(out, lowerCaseNameSpans(out, taggedTerms(read, out)), 'NAME', counts);
  }
  for (const cue of NAME_CUES) {
    out = out.replace(cue, (match) => {
      if (common(match)) return match;
      if (match.split(' ').at(-1) === 'Day') return match; // a holiday ("for Columbus Day"), not a person
      counts.NAME = (counts.NAME ?? 0) + 1;
      return '[NAME]';
    });
  }
  const names = tagger ? peopleIn(read, out) : [];
  for (const n of names) {
    const span = out.slice(n.start, n.end).replace(/[\s,.;:!?]+$/u, '');
    if (span === '') continue;
    out = `${out.slice(0, n.start)}[NAME]${out.slice(n.start + span.length)}`;
    counts.NAME = (counts.NAME ?? 0) + 1;
  }
  return { text: out.replace(MARK, (_m, n: string) => hidden.kept[Number.parseInt(n, 36)] ?? ''), counts };
}
