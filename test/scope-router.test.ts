import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSafetyFloor, createScopeRouter, type ScopeClassifier, type ScopeScores } from '../src/scope/index.js';

/** A classifier that reads every text as the same scores. */
const fixed = (id: string, scores: ScopeScores, thresholds = { urgent: 0.5, clinical: 0.2 }): ScopeClassifier => ({
  modelId: id,
  sha256: id.repeat(64).slice(0, 64),
  thresholds,
  classify: (texts) => Promise.resolve(texts.map(() => scores)),
});
const scores = (admin: number, clinical: number, emergency: number, crisis: number): ScopeScores => ({ admin, clinical, emergency, crisis });
const floor = createSafetyFloor();
const IN_SCOPE = scores(0.97, 0.01, 0.01, 0.01);
const text = 'can i book a walk in for tomorrow';

describe('a second classifier that can only add an urgent routing', () => {
  it('routes a message the first keeps in scope when its own urgent reading crosses its own threshold, as the kind it reads, and records both', async () => {
    const first = fixed('a', IN_SCOPE);
    const second = fixed('b', scores(0.3, 0.05, 0.15, 0.5), { urgent: 0.6, clinical: 0.9 });
    const decision = await createScopeRouter({ classifier: first, urgentReader: second, floor }).route({ text });
    expect(decision).toMatchObject({ route: 'crisis', decided_by: 'second_model', model: 'a', urgent: 0.02, second: { model: 'b', sha256: second.sha256, threshold: 0.6, scores: scores(0.3, 0.05, 0.15, 0.5), urgent: 0.65 } });
    // Below its threshold it changes nothing, and its reading is still recorded.
    const below = await createScopeRouter({ classifier: first, urgentReader: fixed('b', scores(0.5, 0.05, 0.2, 0.25), { urgent: 0.6, clinical: 0.9 }), floor }).route({ text });
    expect(below).toMatchObject({ route: 'in_scope', decided_by: 'none', second: { urgent: 0.45 } });
    // Without it, the first classifier alone: no second reading in the decision.
    expect(await createScopeRouter({ classifier: first, floor }).route({ text })).not.toHaveProperty('second');
  });

  it('adds only the kinds it is allowed to, and the trace says which', async () => {
    const first = fixed('a', IN_SCOPE);
    const crisis = fixed('b', scores(0.2, 0.05, 0.05, 0.7));
    const emergency = fixed('b', scores(0.2, 0.05, 0.7, 0.05));
    const only = (reader: ScopeClassifier) => createScopeRouter({ classifier: first, urgentReader: reader, urgentReaderAdds: ['emergency'], floor }).route({ text });
    expect(await only(crisis)).toMatchObject({ route: 'in_scope', decided_by: 'none', second: { adds: ['emergency'], urgent: 0.75 } });
    expect(await only(emergency)).toMatchObject({ route: 'emergency', decided_by: 'second_model', second: { adds: ['emergency'] } });
    expect(await createScopeRouter({ classifier: first, urgentReader: crisis, floor }).route({ text })).toMatchObject({ route: 'crisis', second: { adds: ['emergency', 'crisis'] } });
  });

  it('adds urgent routings and nothing else, whatever either model reads (property)', async () => {
    const probabilities = fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })).map(([a, c, e, k]) => {
      const sum = a + c + e + k || 1;
      return scores(a / sum, c / sum, e / sum, k / sum);
    });
    const messages = fc.constantFrom(text, 'I want to end my life, can I reschedule?', 'what are the lab hours on saturday, and is there parking');
    const kinds = fc.subarray(['emergency', 'crisis'] as const, { minLength: 1 });
    await fc.assert(
      fc.asyncProperty(probabilities, probabilities, messages, kinds, async (p, q, message, adds) => {
        const first = fixed('a', p);
        const alone = await createScopeRouter({ classifier: first, floor }).route({ text: message });
        const both = await createScopeRouter({ classifier: first, urgentReader: fixed('b', q), urgentReaderAdds: adds, floor }).route({ text: message });
        if (alone.route === 'emergency' || alone.route === 'crisis') return both.route === alone.route && both.decided_by === alone.decided_by;
        return both.route === alone.route ? both.decided_by === alone.decided_by : (adds as readonly string[]).includes(both.route) && both.decided_by === 'second_model';
      }),
    );
  });
});
