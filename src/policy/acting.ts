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
