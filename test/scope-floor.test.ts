import fc from 'fast-check';
import nlp from 'compromise';
import { describe, expect, it } from 'vitest';
import { createSafetyFloor, DEFAULT_FLOOR } from '../src/scope/index.js';

const floor = createSafetyFloor();

/** Every form compromise conjugates a base-form verb into (independent of the Porter stems the floor matches on); other words as they are. */
function forms(word: string): string[] {
  const verb = (nlp(word).verbs().conjugate() as Record<string, string>[])[0];
  if (verb?.Infinitive !== word) return [word];
  return [...new Set([word, ...Object.values(verb).filter((f) => !f.includes(' '))])];
}

/** One phrasing of a floor phrase: an alternative per slot, each word in some inflection. */
const phrasing = (phrase: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...(phrase.match(/\{[^}]+\}|[^\s{}]+/gu) ?? []).map((part) => {
        const alternatives = part.startsWith('{') ? part.slice(1, -1).split('|') : [part];
        return fc.constantFrom(...alternatives.flatMap(forms));
      }),
    )
    .map((words) => words.join(' '));

const APPOINTMENT = [
  'can I get an appointment this week?',
  'is the clinic open today',
  'How do I reschedule my visit with Dr. Lee?',
  'do you take walk-ins on saturday',
];

describe('safety floor', () => {
  it('is short and audited: every phrase routes to emergency or crisis', () => {
    expect(DEFAULT_FLOOR.length).toBeLessThanOrEqual(30);
    for (const p of DEFAULT_FLOOR) expect(floor.match(p.phrase.replace(/\{([^|}]+)[^}]*\}/gu, '$1'))).toEqual({ phrase: p.phrase, routesTo: p.routesTo });
  });

  it('routes every floor phrase, inflected, in any case, embedded in an appointment question', () => {
    for (const { phrase, routesTo } of DEFAULT_FLOOR) {
      fc.assert(
        fc.property(phrasing(phrase), fc.constantFrom(...APPOINTMENT), fc.boolean(), fc.boolean(), (words, ask, before, upper) => {
          const text = before ? `${ask} ${words}.` : `${words}... ${ask}`;
          const hit = floor.match(upper ? text.toUpperCase() : text);
          expect(hit?.routesTo).toBe(routesTo);
        }),
        { seed: 14, numRuns: 40 },
      );
    }
  });

  it('reads "ending my life" as "end my life" and apostrophes either way', () => {
    expect(floor.match("I've been thinking about ending my life. Can I get an appointment with someone this week?")?.routesTo).toBe('crisis');
    expect(floor.match('he cant breathe')?.routesTo).toBe('emergency');
    expect(floor.match("he can't breathe")?.routesTo).toBe('emergency');
    expect(floor.match('I cannot breathe')?.routesTo).toBe('emergency');
  });

  it('stays out of ordinary appointment questions', () => {
    for (const q of [...APPOINTMENT, 'I had a seizure last year, can I book a neurology follow-up?', 'can I book a mental health appointment', 'where do I park for the breathing test']) {
      expect(floor.match(q)).toBeNull();
    }
  });

  it('matches a several-word alternative as a whole, never one of its words alone', () => {
    expect(floor.match('thinking about sewer slide')?.routesTo).toBe('crisis');
    expect(floor.match('is there a sliding scale for counseling?')).toBeNull();
    const own = createSafetyFloor([{ phrase: '{overdose|took too many} pills', routesTo: 'crisis' }]);
    expect(own.match('I took too many pills')?.routesTo).toBe('crisis');
    expect(own.match('how many pills come in a refill?')).toBeNull();
  });

  it('takes a deployment\'s own phrases, which only add', () => {
    const own = createSafetyFloor([{ phrase: 'jump off {the|a} bridge', routesTo: 'crisis' }]);
    expect(own.match('thinking about jumping off the bridge tonight')?.routesTo).toBe('crisis');
    expect(floor.match('thinking about jumping off the bridge tonight')).toBeNull();
    expect(own.match('I want to kill myself')?.routesTo).toBe('crisis');
  });

  it('never throws on odd input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        floor.match(text);
      }),
      { seed: 14, numRuns: 300 },
    );
    expect(floor.match('🙂')).toBeNull();
    expect(floor.match('')).toBeNull();
  });
});
