import type { ScopeDecision } from '../domain/index.js';
import { splitSentences } from '../text/index.js';
import { SECOND_READER_ADDS, type ScopeClassifier, type ScopeScores } from './classifier.js';
import type { SafetyFloor, UrgentClass } from './floor.js';
import type { LanguageIdentifier } from './language.js';
import { asksNothing } from './phatic.js';

/** Long unpunctuated messages are read in overlapping windows of this many words. */
const WINDOW = 32;
const STRIDE = 24;

/**
 * What is classified beside the whole message: nothing for a short message (a sentence fragment
 * out of context misleads the head more than it helps), and for a long one its sentences and word
 * windows, so a crisis line buried in a long message is read on its own.
 */
export function segmentsOf(text: string): string[] {
  if (text.split(' ').length <= WINDOW) return [];
  const out: string[] = [];
  for (const sentence of splitSentences(text)) {
    const words = sentence.split(' ');
    if (words.length <= WINDOW) out.push(sentence);
    else for (let i = 0; i < words.length; i += STRIDE) out.push(words.slice(i, i + WINDOW).join(' '));
  }
  return out;
}

export interface ScopeRouter {
  /** Route a normalized message; a long one is classified with its sentences and windows in one batch. */
  route(request: {
    readonly text: string;
    /** The same message before redaction, read only by the safety floor. */
    readonly unredacted?: string;
  }): Promise<ScopeDecision>;
}

const urgency = (s: ScopeScores): number => s.emergency + s.crisis;
const kindOf = (s: ScopeScores): UrgentClass => (s.crisis > s.emergency ? 'crisis' : 'emergency');

/**
 * Safety first: the floor, then a message that asks nothing (a greeting, thanks), then the language
 * (a message the classifier cannot read is not judged by it, and is told 911, 988 and the interpreter line), then the classifier's urgent score over every
 * segment (so a booking question attached to a crisis line cannot dilute it), then a clause in
 * another language, then clinical advice over the whole message. Emergency and crisis win over everything, including an appointment
 * request. `language` is left out only by evaluations that measure the classifier alone.
 */
export function createScopeRouter(options: {
  readonly classifier: ScopeClassifier;
  /** A second classifier whose urgent reading can only add an emergency or crisis routing, at its own threshold (candidate S). */
  readonly urgentReader?: ScopeClassifier;
  /** The kinds of routing the second classifier may add (default: the shipped SECOND_READER_ADDS; candidate S″: emergency only). */
  readonly urgentReaderAdds?: readonly UrgentClass[];
  readonly floor: SafetyFloor;
  readonly language?: LanguageIdentifier;
}): ScopeRouter {
  const { classifier, urgentReader, floor, language } = options;
  const adds = options.urgentReaderAdds ?? SECOND_READER_ADDS;
  const { urgent: urgentAt, clinical: clinicalAt } = classifier.thresholds;
  /** The message and its segments as one classifier reads them: the whole message's scores, and the most urgent reading. */
  const read = async (model: ScopeClassifier, texts: readonly string[]): Promise<{ whole: ScopeScores; top: ScopeScores }> => {
    const all = await model.classify(texts);
    const whole = all[0] ?? { admin: 1, clinical: 0, emergency: 0, crisis: 0 };
    return { whole, top: all.reduce((best, s) => (urgency(s) > urgency(best) ? s : best), whole) };
  };
  return {
    async route({ text, unredacted }) {
      const texts = [text, ...segmentsOf(text)];
      const [{ whole, top }, second] = await Promise.all([
        read(classifier, texts),
        urgentReader === undefined ? null : read(urgentReader, texts).then((reading) => ({ ...reading, model: urgentReader })),
      ]);
      const reading = language?.identify(text);
      const base = {
        floor_phrase: null,
        model: classifier.modelId,
        sha256: classifier.sha256,
        thresholds: { ...classifier.thresholds },
        scores: whole,
        urgent: urgency(top),
        segments: texts.length,
        ...(second === null
          ? {}
          : { second: { model: second.model.modelId, sha256: second.model.sha256, threshold: second.model.thresholds.urgent, adds: [...adds], scores: second.whole, urgent: urgency(second.top) } }),
        ...(language === undefined || reading === undefined
          ? {}
          : { language: { model: language.modelId, sha256: language.sha256, min_letters: { ...language.minLetters }, clause_margin: language.clauseMargin, code: reading.language, english: reading.english, reliable: reading.reliable, clause: reading.clause } }),
      };
      const hit = floor.match(text) ?? (unredacted === undefined ? null : floor.match(unredacted));
      // The floor decides that the message is routed; when the classifier also finds it urgent, its
      // reading of which kind (emergency or crisis) picks the message, since "not wake up" can be either.
      if (hit !== null) return { ...base, route: urgency(top) >= urgentAt ? kindOf(top) : hit.routesTo, decided_by: 'floor', floor_phrase: hit.phrase };
      // A message made only of greetings, thanks and acknowledgements asks nothing: the classifiers have nothing to
      // read in it (they send "hi" to 988), so it is asked what it wants. The floor above has already had its say.
      if (asksNothing(text)) return { ...base, route: 'no_request', decided_by: 'phatic' };
      // The classifier reads English only: on a message in another language its scores are noise
      // (half of the administrative messages in other languages read as a crisis), so they are
      // recorded, not used; the language message carries 911 and 988 in the patient's language.
      // A message that reads as English with one clause in another is still the classifier's to
      // call urgent ("had a crab cake at the church potluck" reads as German).
      const unreadable = reading !== undefined && !reading.english;
      if (unreadable && reading.clause === null) return { ...base, route: 'language', decided_by: 'language' };
      if (urgency(top) >= urgentAt) return { ...base, route: kindOf(top), decided_by: 'model' };
      // The second reader can only add an urgent routing: what the first keeps in scope, sends to the care team or
      // to the language message for one clause, it sends to 911 or 988 when its own urgent reading crosses its own threshold.
      if (second !== null && urgency(second.top) >= second.model.thresholds.urgent && adds.includes(kindOf(second.top))) {
        return { ...base, route: kindOf(second.top), decided_by: 'second_model' };
      }
      if (unreadable) return { ...base, route: 'language', decided_by: 'language' };
      if (whole.clinical >= clinicalAt) return { ...base, route: 'clinical', decided_by: 'model' };
      return { ...base, route: 'in_scope', decided_by: 'none' };
    },
  };
}
