/**
 * Who acts for whom (issue 16: "the person the patient acts for"). A question in which someone other
 * than the patient acts for them ("can my wife cancel my appointment", "can my neighbor pick up my
 * records for me") or the patient acts for someone ("i'm my dad's power of attorney, can i cancel his
 * appointments") asks whether *that person* may do it. A rule about what the patient does for
 * themselves ("you can cancel in the portal") shares the topic and does not answer; an answer has to
 * say something about a person other than the patient. Typed analysis over closed classes of English
 * words (relations, proxy roles, words for another person), not a list of phrasings.
 */

/** Relations and people a patient may name by their tie to them. */
const RELATIONS = [
  'wife', 'husband', 'spouse', 'partner', 'boyfriend', 'girlfriend', 'fiance', 'fiancee', 'son', 'daughter', 'kid', 'child', 'teen',
  'mom', 'mother', 'mum', 'dad', 'father', 'parent', 'grandma', 'grandmother', 'grandpa', 'grandfather', 'grandparent', 'grandson',
  'granddaughter', 'brother', 'sister', 'sibling', 'aunt', 'uncle', 'cousin', 'niece', 'nephew', 'friend', 'neighbor', 'neighbour',
  'roommate', 'nanny', 'babysitter', 'sitter', 'caregiver', 'stepmom', 'stepdad', 'stepson', 'stepdaughter', 'mother-in-law',
  'father-in-law', 'relative', 'family',
] as const;
/** Standing a person can hold to act for a patient. */
const PROXY_ROLES = ['proxy', 'guardian', 'caregiver', 'power of attorney', 'poa', 'agent', 'representative', 'conservator', 'surrogate'] as const;
/** The patient's own affairs, as the object of what the other person would do. */
const OWN_AFFAIRS = ['appointment', 'appointments', 'records', 'record', 'prescription', 'prescriptions', 'account', 'bill', 'results', 'referral', 'paperwork', 'forms', 'form', 'portal', 'visit', 'meds', 'medication', 'medications', 'stuff'] as const;
/** Words for another person than the patient, beside the relations and roles. */
const ANOTHER_PERSON = ['someone', 'somebody', 'anyone', 'anybody', 'another adult', 'another person', 'other adults', 'other people', 'other person', 'family member', 'family members', 'third party', 'support person', 'companion', 'escort', 'visitor', 'visitors', 'designee'] as const;

const alternation = (words: readonly string[]): string => [...words].sort((a, b) => b.length - a.length).map((w) => w.replace(/[-\s]/gu, '[-\\s]')).join('|');
const RELATION = `(?:${alternation(RELATIONS)})s?`;
const ROLE = alternation(PROXY_ROLES);

/**
 * Someone named by relation, the subject of what is asked ("can my wife", "if my son", "let my
 * neighbor"), does something for the patient: "… my appointment", "… for me".
 */
const FOR_PATIENT = new RegExp(`\\b(?:can|could|may|will|would|is|does|do|should|must|let|allow|if|when)\\s+my (?:[a-z0-9-]+ ){0,2}?(${RELATION})\\b(?!'s).*?(?:\\bfor me\\b|\\bon my behalf\\b|\\bwithout me\\b|\\bmy (?:${alternation(OWN_AFFAIRS)})\\b)`, 'u');
/** The patient holds a standing for someone: "i'm my mom's proxy", "i'm my brother's court appointed guardian". */
const HOLDS_ROLE = new RegExp(`\\b(?:i'?m|i am|as) (?:my|his|her|their) (?:[a-z0-9-]+ ){0,2}?${RELATION}'s (?:[a-z-]+ ){0,3}?(${ROLE})\\b`, 'u');
/** The patient speaks as someone's relation: "as his daughter, am i allowed …". */
const AS_RELATION = new RegExp(`\\bas (?:his|her|their) (${RELATION})\\b`, 'u');

const ANY_PERSON = new RegExp(`\\b(?:${RELATION}|${ROLE}|proxies|guardians|guardianship|${alternation(ANOTHER_PERSON)})\\b`, 'iu');

/**
 * The person a question acts through, as the question names them ("my wife", "proxy"), or null when
 * the patient asks about their own affairs or about someone who is the patient ("can my son get a
 * flu shot"). Reads the normalized (lower-case) question.
 */
export function actingFor(question: string): string | null {
  const forPatient = FOR_PATIENT.exec(question);
  if (forPatient !== null) return `my ${forPatient[1] ?? ''}`;
  return HOLDS_ROLE.exec(question)?.[1] ?? AS_RELATION.exec(question)?.[1] ?? null;
}

/** Whether a text speaks of a person other than the patient: a relation, a proxy role, "someone", "another adult", "a family member". */
export const namesAnotherPerson = (text: string): boolean => ANY_PERSON.test(text);

// Candidate AA (docs/support-judge.md, sessions 32 and 33): whether the person a question is about is an adult by the
// words themselves. A unit whose only other persons are minors ("a parent or legal guardian can have proxy access to a
// child's account until the child turns 12") shares the topic of a question about an 80-year-old mother's proxy and does
// not answer it. Closed classes of English words, as above: relations that are adults by the word, a child's words, ages.

/** Relations that are adults by the word, as the person a question is about. */
const ADULT_RELATIONS: readonly string[] = [
  'wife', 'husband', 'spouse', 'partner', 'fiance', 'fiancee', 'mom', 'mother', 'mum', 'dad', 'father', 'parent', 'grandma',
  'grandmother', 'grandpa', 'grandfather', 'grandparent', 'aunt', 'uncle', 'stepmom', 'stepdad', 'mother-in-law', 'father-in-law',
];
/** Relations whose counterpart is an adult: the person a spouse, child or grandchild acts for, or speaks as such for. */
const OF_AN_ADULT: readonly string[] = [
  'wife', 'husband', 'spouse', 'partner', 'fiance', 'fiancee', 'son', 'daughter', 'stepson', 'stepdaughter', 'grandson', 'granddaughter',
  'mother-in-law', 'father-in-law',
];
/** Words that make a person an adult. */
const ADULT_QUALIFIERS = ['adult', 'adults', 'grown', 'grown-up', 'elderly', 'aging', 'ageing'] as const;
/** A child's words. */
const MINORS = ['child', 'children', 'kid', 'kiddo', 'minor', 'baby', 'babies', 'infant', 'newborn', 'toddler', 'teen', 'teenager', 'adolescent'] as const;
/** In a unit, persons a child's rule names besides the child: its parent or guardian, its proxy, a son or daughter. */
const BESIDE_A_CHILD = ['parent', 'guardian', 'guardians', 'guardianship', 'mother', 'father', 'mom', 'dad', 'son', 'daughter', 'proxy', 'proxies'] as const;
/** In a unit, adults by the word that the relations above do not name: "a person the patient names", "the guarantor". */
const ADULT_PERSONS = ['person', 'persons', 'people', 'individual', 'individuals', 'guarantor', 'guarantors', 'account holder', 'policyholder'] as const;
/** Units of measure an "under N" may count instead of years of age ("under 24 hours", "under 2 miles"). */
const MEASURES = ['hour', 'hr', 'day', 'minute', 'min', 'second', 'week', 'month', 'mile', 'km', 'dollar', 'pound', 'lb', 'kg', 'percent', 'page', 'mb'] as const;
/** A unit of measure after a number ("24 hours", "10 minutes"): what "under N" counts is then no age. */
const MEASURE = String.raw`\s*(?:${alternation(MEASURES)})s?\b`;
/** What after a number makes it no age: a unit of measure, or a clock time ("18:00", "18.30", "5 pm"). */
const NOT_AN_AGE = String.raw`${MEASURE}|:|\.\d|\s?(?:am|pm)\b`;

/** The age of the person a question is about (`actedForAge`). */
export type ActedForAge = 'adult' | 'grown_child' | 'minor';

const QUALIFIERS = '(?:[a-z0-9-]+ ){0,3}?';
/** A person's age as a question gives it: "my 80 year old mom", "my 15-year-old", "80yo", "she's 16", "i'm 15", "my son is 19", "he turned 18". */
const AGE = new RegExp(
  String.raw`\b(\d{1,3})(?:[-\s]?(?:years?|yrs?)[-\s]?old|\s?yo)\b|\b(?:i'?m|i am|he'?s|she'?s|he is|she is|they'?re|they are|who is|who's|turn(?:s|ed)?|my (?:[a-z-]+ ){0,2}?${RELATION} (?:is|just turned)) (\d{1,2})\b(?!${NOT_AN_AGE})`,
  'gu',
);
/** The relation owns what is asked, or is what it is done for: "my mom's proxy", "proxy for my dad", "access to my husband". */
const OWNS = new RegExp(`\\b(?:my ${QUALIFIERS}(${RELATION})(?:'s|s')|(?:for|to) my ${QUALIFIERS}(${RELATION})\\b)`, 'u');
/**
 * The relation is who the rest of the question is about: "my dad has dementia … can i get into his portal", "my son turns
 * 18"; read only when the question names one relation ("can my mom take my daughter to her checkup" names two).
 */
const TOLD_OF = new RegExp(`\\bmy ${QUALIFIERS}(${RELATION})\\b(?!'s)(?:.*\\b(?:he|she|his|her|him)\\b| (?:is|turns|turned|just turned|will turn|will be) \\d)`, 'u');
const RELATION_EACH = new RegExp(`\\b(${RELATION})\\b`, 'gu');
const CHILD_WORD = new RegExp(`\\b(?:${alternation(MINORS)})(?:s|'s)?\\b`, 'iu');
const ADULT_WORD = new RegExp(`\\b(?:${alternation(ADULT_QUALIFIERS)})\\b`, 'iu');
/**
 * A unit's ages: "under 12", "under the age of 18", "until the child turns 12", "before their 18th birthday"; and an age
 * of majority said as when something happens, "at 18", "at age 21" (18 to 21 only, so "at 8" stays a time of day; not
 * "at 18:00", "at 20 minutes"). Adults: "18 and older".
 */
const UNIT_MINOR_AGE = new RegExp(
  `\\b(?:(?:under|younger than|below) (?:the age of |age )?(\\d{1,2})\\b(?!${MEASURE})|turns? (\\d{1,2})\\b|(\\d{1,2})(?:st|nd|rd|th) birthday\\b|at (?:the age of |age )?(1[89]|2[01])\\b(?!${NOT_AN_AGE}|\\s?h\\b))`,
  'giu',
);
/** An adult's age in a unit, not a limit under or at it ("at age 18" is a limit): "18 and older", "over 18", "through 21 years old", "ages 18 to 64", "65+". */
const UNIT_ADULT_AGE = /(?<!\b(?:under|younger than|below|turns?|turned|at) (?:the age of |age )?)\b(?:(?:1[89]|[2-9]\d|1[01]\d)(?: (?:and|or) (?:older|over|up)\b|\+|[-\s](?:years?|yrs?)[-\s](?:old|of age)\b)|(?:over|older than|ages?d?) (?:the age of )?(?:1[89]|[2-9]\d)(?!\d|\s*(?:months?|weeks?|days?)\b))/iu;
const OWNED_AFFAIR = new RegExp(`^'s (?:[a-z-]+ )?(?:${alternation(OWN_AFFAIRS)})\\b`, 'iu');
const ADULT_PERSON = new RegExp(`\\b(?:${alternation(ADULT_PERSONS)})\\b`, 'iu');
const ANY_PERSON_EACH = new RegExp(ANY_PERSON.source, 'giu');
const singular = (word: string): string => word.toLowerCase().replace(/'s$|s'$/u, '').replace(/(?<=[a-z]{3})s$/u, '');
const BESIDE = new Set<string>(BESIDE_A_CHILD);

/**
 * The relation named as the person a question is about, and whether they act for the patient (else the patient for them);
 * the pronoun reading only when the question names one relation.
 */
function aboutWhom(question: string, oneRelation: boolean): { readonly relation: string; readonly agent: boolean } | null {
  const agent = FOR_PATIENT.exec(question)?.[1];
  if (agent !== undefined) return { relation: singular(agent), agent: true };
  const owner = OWNS.exec(question);
  const relation = owner?.[1] ?? owner?.[2] ?? (oneRelation ? TOLD_OF.exec(question)?.[1] : undefined);
  return relation === undefined ? null : { relation: singular(relation), agent: false };
}

/** The speaker's own children, who stay their child when grown. */
const OWN_CHILDREN: readonly string[] = ['son', 'daughter', 'stepson', 'stepdaughter', 'child', 'kid'];

/**
 * The age of the person a question is about (the one acted for), by the words themselves: `adult` for an adult relation
 * ("my mom's proxy", "for my husband"), an adult's words ("an elderly neighbor", "my 80 year old mom"), a patient acted
 * for by their spouse or child ("can my son pick up my prescription"), or the one the speaker is a son, daughter or
 * spouse of ("as his daughter"); `grown_child` when that adult is the speaker's own son or daughter ("my adult son's
 * records", "my daughter just turned 18"); `minor` for a child's words or an age under 18; null when the words say
 * neither, or both. Reads the normalized (lower-case) question.
 */
export function actedForAge(question: string): ActedForAge | null {
  // Every reading below starts from a relation: most questions name none, and are read once.
  const named = new Set(Array.from(question.matchAll(RELATION_EACH), (m) => singular(m[1] ?? '')));
  if (named.size === 0) return null;
  const about = aboutWhom(question, named.size === 1);
  const speaker = AS_RELATION.exec(question)?.[1];
  // Only a question that acts for someone, or someone for the patient: an age alone ("it's for me, i'm 34") asks about the patient.
  if (about === null && speaker === undefined) return null;
  const ages = [...question.matchAll(AGE)].map((m) => Number(m[1] ?? m[2]));
  const ownChild = about !== null && !about.agent && OWN_CHILDREN.includes(about.relation);
  const adult =
    ages.some((a) => a >= 18) ||
    ADULT_WORD.test(question) ||
    (about !== null && (about.agent ? OF_AN_ADULT : ADULT_RELATIONS).includes(about.relation)) ||
    (speaker !== undefined && OF_AN_ADULT.includes(singular(speaker)));
  const child = ages.some((a) => a < 18) || (CHILD_WORD.test(question) && !(ownChild && adult));
  if (adult === child) return null;
  return child ? 'minor' : ownChild ? 'grown_child' : 'adult';
}

/**
 * Whether a unit's only persons besides the patient are minors and those beside them (a child's parent or guardian, its
 * proxy), for a question about an adult of that age: it speaks of a child ("child", "under 12", "until the child turns
 * 12", and for any adult but a grown son or daughter, "until their 18th birthday") and of no adult ("adults", "18 and
 * older", a spouse, a caregiver, "someone", "a family member").
 */
export function speaksOnlyOfMinors(text: string, age: 'adult' | 'grown_child'): boolean {
  const limits = [...text.matchAll(UNIT_MINOR_AGE)].map((m) => Number(m[1] ?? m[2] ?? m[3] ?? m[4]));
  // An age of majority ("under 18", "until their 18th birthday") draws the line between a parent's child and that child
  // grown: it speaks of a grown son or daughter, and of no other adult.
  const majority = limits.some((n) => n >= 18 && n <= 21);
  if (majority && age === 'grown_child') return false;
  if (!majority && !limits.some((n) => n < 18) && !CHILD_WORD.test(text)) return false;
  if (ADULT_WORD.test(text) || UNIT_ADULT_AGE.test(text) || ADULT_PERSON.test(text)) return false;
  // A parent whose own affairs the unit is about ("my parent's account") is the patient, an adult.
  return [...text.matchAll(ANY_PERSON_EACH)].every((m) => {
    const word = m[0].toLowerCase();
    if (CHILD_WORD.test(word)) return true;
    return (BESIDE.has(word) || BESIDE.has(singular(word))) && !OWNED_AFFAIR.test(text.slice(m.index + m[0].length));
  });
}
