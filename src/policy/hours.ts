/**
 * Whose hours (candidate HC, docs/support-judge.md, session 34). "What time do you close tonight" asks when a place is
 * open; "The scheduling line at 555-0117 is answered Monday through Friday from 7 am to 6 pm" states when a phone line is
 * answered. The two share every word a topic match reads (hours, days, times) and the line's hours do not answer for the
 * clinic. Typed analysis over closed classes of English words: the ways of reaching a health system from afar (its lines,
 * desks and centres by phone, its portal and app) and the words a question uses to ask about one; no phrasing list.
 */

/** What a phone line is for, before "line" ("the scheduling line", "the nurse advice line", "the main line"). */
const LINE_PURPOSES = [
  'scheduling', 'appointment', 'appointments', 'booking', 'nurse', 'advice', 'billing', 'phone', 'telephone', 'call', 'help',
  'answering', 'main', 'access', 'triage', 'records', 'after-hours', 'patient', 'information', 'contact', 'customer service',
] as const;
/** What a desk, centre, service, team or office reached by phone is for ("the booking desk", "the call center"); not a desk in a lobby. */
const REMOTE_PURPOSES = ['scheduling', 'appointment', 'appointments', 'booking', 'billing', 'call', 'contact', 'access', 'answering', 'triage'] as const;
const REMOTE = ['desk', 'center', 'centre', 'service', 'team', 'office'] as const;
/** Reached from afar by themselves. */
const REMOTE_ALONE = ['phone lines', 'phones', 'portal', 'app', 'chat'] as const;
/** Words by which a question asks about reaching the system from afar, or about doing what one reaches it for. */
const ASKS_REMOTE = [
  'line', 'lines', 'call', 'calls', 'calling', 'phone', 'phones', 'telephone', 'portal', 'app', 'online', 'message', 'messages', 'chat',
  'text', 'email', 'nurse', 'billing', 'book', 'booking', 'schedule', 'scheduling', 'reschedule', 'cancel', 'reach', 'contact', 'speak',
  'talk', 'desk',
] as const;

const alternation = (words: readonly string[]): string => [...words].sort((a, b) => b.length - a.length).map((w) => w.replace(/[-\s]/gu, '[-\\s]')).join('|');
const CHANNEL = `(?:(?:${alternation(LINE_PURPOSES)})[-\\s]lines?|(?:${alternation(REMOTE_PURPOSES)})[-\\s](?:${alternation(REMOTE)})|${alternation(REMOTE_ALONE)})`;

/** A question about when a place is open: "hours" (not a length, "24 hours before"), "open", "close", "what time … open". */
const ASKS_HOURS = /\b(?:(?<!\d\s?)hours|hrs|open|opens|opening|close|closes|closed|closing)\b/u;
const ASKS_REMOTE_WORD = new RegExp(`\\b(?:${alternation(ASKS_REMOTE)})\\b`, 'u');

/** A unit stating a remote channel's hours: "the scheduling line (555-0117) is answered …", "Nurse line hours: …". */
const CHANNEL_HOURS = new RegExp(
  `\\b(${CHANNEL})\\b(?:\\s*\\([^)]*\\)|,[^,]{1,60},|\\s+at\\s+[\\d-]+)?\\s+(?:is|are)\\s+(?:answered|staffed|open|closed|available)\\b|\\b(${CHANNEL})\\s+hours\\b`,
  'iu',
);

/** Whether a question asks when a place is open, and names no remote channel nor what one reaches it for. Reads the normalized (lower-case) question. */
export const asksPlaceHours = (question: string): boolean => ASKS_HOURS.test(question) && !ASKS_REMOTE_WORD.test(question);

/** The remote channel whose hours a unit states ("scheduling line"), or null. */
export function channelOfHours(text: string): string | null {
  const m = CHANNEL_HOURS.exec(text);
  return m === null ? null : (m[1] ?? m[2] ?? '').toLowerCase();
}
