import { splitSentences } from '../text/index.js';
import type { ScopeClassifier, ScopeScores } from './classifier.js';
import type { SafetyFloor, UrgentClass } from './floor.js';

export type Route = 'in_scope' | UrgentClass | 'clinical';

/** Why a message was (or was not) routed away: recorded in the trace so verify and replay can re-derive it. */
export interface ScopeRouting {
  readonly route: Route;
  /** `floor`: a safety-floor phrase matched; `model`: the classifier's score crossed its threshold; `none`: in scope. */
  readonly decidedBy: 'floor' | 'model' | 'none';
  readonly floorPhrase: string | null;
  readonly model: string;
  readonly sha256: string;
  readonly thresholds: ScopeClassifier['thresholds'];
  /** Class probabilities of the whole message. */
  readonly scores: ScopeScores;
  /** The highest P(emergency) + P(crisis) over the whole message and each of its sentences. */
  readonly urgent: number;
  /** How many texts were classified: the message, plus its sentences and windows when it is long. */
  readonly segments: number;
}

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
  }): Promise<ScopeRouting>;
}

const urgency = (s: ScopeScores): number => s.emergency + s.crisis;
const kindOf = (s: ScopeScores): UrgentClass => (s.crisis > s.emergency ? 'crisis' : 'emergency');

/**
 * Safety first: the floor, then the classifier's urgent score over every segment (so a booking
 * question attached to a crisis line cannot dilute it), then clinical advice over the whole
 * message. Emergency and crisis win over everything, including an appointment request.
 */
export function createScopeRouter(options: { readonly classifier: ScopeClassifier; readonly floor: SafetyFloor }): ScopeRouter {
  const { classifier, floor } = options;
  const { urgent: urgentAt, clinical: clinicalAt } = classifier.thresholds;
  return {
    async route({ text, unredacted }) {
      const all = await classifier.classify([text, ...segmentsOf(text)]);
      const whole = all[0] ?? { admin: 1, clinical: 0, emergency: 0, crisis: 0 };
      const top = all.reduce((best, s) => (urgency(s) > urgency(best) ? s : best), whole);
      const base = {
        floorPhrase: null,
        model: classifier.modelId,
        sha256: classifier.sha256,
        thresholds: classifier.thresholds,
        scores: whole,
        urgent: urgency(top),
        segments: all.length,
      };
      const hit = floor.match(text) ?? (unredacted === undefined ? null : floor.match(unredacted));
      // The floor decides that the message is routed; when the classifier also finds it urgent, its
      // reading of which kind (emergency or crisis) picks the message, since "not wake up" can be either.
      if (hit !== null) return { ...base, route: urgency(top) >= urgentAt ? kindOf(top) : hit.routesTo, decidedBy: 'floor', floorPhrase: hit.phrase };
      if (urgency(top) >= urgentAt) return { ...base, route: kindOf(top), decidedBy: 'model' };
      if (whole.clinical >= clinicalAt) return { ...base, route: 'clinical', decidedBy: 'model' };
      return { ...base, route: 'in_scope', decidedBy: 'none' };
    },
  };
}
