import { createRequire } from 'node:module';
import type Compromise from 'compromise';

// compromise's ESM entry is some 440 modules; its CommonJS entry is one bundled file of the same
// release and loads in half the time (about 150 ms less at every CLI start that answers).
const nlp = createRequire(import.meta.url)('compromise') as typeof Compromise;
import { conceptualize } from './concepts.js';
import { daysNamed, type Weekday } from './days.js';
import { askedDetails, detailCues } from './details.js';
import { analysisTerms, contentTerms } from './tokens.js';

/**
 * Words that frame a question without naming what it is about: who sent the patient ("my
 * doctor"), when it happens ("next month", "tomorrow morning"), what kind of event ("my
 * appointment"). A policy sentence need not repeat them to answer.
 */
const FRAME_TERMS: ReadonlySet<string> = new Set(
  contentTerms(
    'doctor doctors provider providers physician appointment appointments appt visit visits time times week weeks month months year years ' +
      'morning mornings afternoon evening tonight tomorrow yesterday soon first next day days',
  ),
);

/** A question whether something exists or is offered, capturing the thing. */
const EXISTENCE =
  /\b(?:is there|are there|do you (?:have|offer)|does (?:the )?(?:\w+ )?(?:clinic|lab|office) (?:have|offer))\s+(?:an? |any |some )?([a-z][a-z\- ]*?)(?=\s+(?:at|in|on|for|to|with|near|inside|by|if|when)\b|[?.!,]|$)/gu;

/**
 * Who the patient is and what their life looks like ("my elderly father", "while I'm at work",
 * "I'm sick"): a question's circumstances. They count when a sentence states them, but a policy
 * that never names them can still answer.
 */
const CIRCUMSTANCES: ReadonlySet<string> = new Set([
  '@illness',
  '@sameday',
  '@caregiver',
  ...contentTerms('mom mother dad father parent parents husband wife spouse partner son daughter family friend elderly work job school soccer sports'),
]);

/** What a question asks, apart from what it tells and how it frames it. */
export interface QuestionFocus {
  /** Content words and concepts a supporting sentence is scored on, plus the asked details. */
  readonly terms: readonly string[];
  /** The nouns and concepts that name the asked-about thing: if no offered passage names one, none answers. */
  readonly topics: readonly string[];
  /** Details asked for (#time, #fee, ...): a sentence addresses the question only if it states them. */
  readonly details: ReadonlySet<string>;
  /** Ways of doing it the question names (by phone, in the portal, in person). */
  readonly channels: ReadonlySet<string>;
  /** Days of the week the asking sentence names: a sentence about other days does not answer it. */
  readonly days: ReadonlySet<Weekday>;
}

/**
 * Ways of doing something that exclude each other: a sentence about rescheduling in the portal
 * does not tell how rescheduling by phone works, however many words the two share.
 */
const CHANNELS: Readonly<Record<string, readonly string[]>> = {
  phone: contentTerms('phone phoned calling call called telephone'),
  portal: contentTerms('portal online app website'),
  person: ['@inperson'],
};

/** The channels a set of terms names. */
export function channelsOf(terms: ReadonlySet<string>): ReadonlySet<string> {
  return new Set(Object.entries(CHANNELS).filter(([, words]) => words.some((w) => terms.has(w))).map(([channel]) => channel));
}

/**
 * Reads the question the way a support decision must: the asking sentence carries the focus
 * ("Can I do a video visit instead?"), a telling sentence before it only context ("I've had a
 * cough for a week."), unless nothing in the question asks. `names` are the terms of the
 * deployment's entity names (clinics, the organization): they narrow the question but are not
 * what it asks about, so they are never topics.
 */
export function questionFocus(question: string, names: ReadonlySet<string> = new Set()): QuestionFocus {
  // Split on end punctuation, not with a sentence segmenter: the normalized question is lower-case.
  const sentences = question.split(/(?<=[.!?])\s+/u).filter((s) => s.trim() !== '');
  const asking = sentences.filter((s) => s.trimEnd().endsWith('?')).join(' ');
  // "I forgot my portal password. What do I do?": an asking sentence without content words asks about the rest.
  const text = analysisTerms(asking).length > 0 ? asking : question;
  const details = askedDetails(text);
  const cues = detailCues(details);
  const all = [...new Set(analysisTerms(text))].filter((t) => !cues.has(t));
  const focused = all.filter((t) => !FRAME_TERMS.has(t));
  // "What should I bring to my appointment?": when the frame is all there is, it is the focus.
  const words = focused.length > 0 || details.size > 0 ? focused : all;
  // Nouns only, not their modifiers: "the latest appointment" is about an appointment.
  const nouns = new Set(
    (nlp(conceptualize(text).rest).match('#Noun').not('(#Adjective|#Pronoun|#Value|#Date|#Possessive)').out('array') as string[]).flatMap((n) => contentTerms(n)),
  );
  // "Is there valet parking ...?", "Do you offer acupuncture?": what is asked to exist is the topic, whatever its part of speech.
  const existence = [...text.matchAll(EXISTENCE)].flatMap((m) => analysisTerms(m[1] ?? ''));
  for (const t of existence) nouns.add(t);
  return {
    terms: [...words, ...details],
    topics: words.filter((t) => !CIRCUMSTANCES.has(t) && !names.has(t) && (t.startsWith('@') || nouns.has(t))),
    details,
    channels: channelsOf(new Set(words)),
    days: daysNamed(text),
  };
}
