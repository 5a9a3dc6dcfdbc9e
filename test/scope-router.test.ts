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

describe('a message that asks nothing', () => {
  const CRISIS = scores(0.2, 0.05, 0.05, 0.7);
  const route = (message: string, reading = CRISIS) => createScopeRouter({ classifier: fixed('a', reading), floor }).route({ text: message });

  it('is asked what it wants, whatever the classifier reads into it, and the classifier is still recorded', async () => {
    for (const message of ['hi', 'Hello there!', 'thank you so much!!', 'ok thanks', 'good morning 🙂', 'Thanks again, everyone.', 'all right', 'that helps', 'perfect, that helped, thx', 'makes sense']) {
      expect(await route(message), message).toMatchObject({ route: 'no_request', decided_by: 'phatic', model: 'a', scores: CRISIS, urgent: 0.75 });
    }
  });

  it('is only a greeting, thanks or acknowledgement: a farewell, a word of distress or any other word leaves it to the classifier', async () => {
    for (const message of ['bye', 'goodbye', 'ok bye', 'thanks for everything', 'thanks, take care', 'ugh', 'help', 'help me', 'nothing helps', 'no', 'hi can i book', 'there', 'so much', 'asdfgh', '!!!']) {
      expect(await route(message), message).toMatchObject({ route: 'crisis', decided_by: 'model' });
    }
  });

  it('reads an emoji as a word: one that says "ok" or "thanks" is a formula, any other hands the message to the classifier', async () => {
    for (const message of ['👍', 'ok 👍', 'thanks 🙏🏽', '👍🏻👍🏻', '✅ got it', 'thank you 😊']) {
      expect(await route(message), message).toMatchObject({ route: 'no_request', decided_by: 'phatic' });
    }
    for (const message of ['😭', 'hi 😭', '👋', 'ok 🔫', 'thanks 💊💊', '👨‍👩‍👧', '?']) {
      expect(await route(message), message).toMatchObject({ route: 'crisis', decided_by: 'model' });
    }
  });

  it('never hides a floor phrase', async () => {
    expect(await route('hi, i want to end my life. thanks', IN_SCOPE)).toMatchObject({ route: 'crisis', decided_by: 'floor' });
  });

  const formula = fc.constantFrom('hi', 'hello', 'hey', 'thanks', 'thank you', 'ok', 'okay', 'good morning', 'great', 'yes', 'sure', 'cheers');
  const filler = fc.constantFrom('there', 'all', 'so much', 'again', 'everyone');
  const casing = fc.constantFrom((s: string) => s, (s: string) => s.toUpperCase(), (s: string) => s.charAt(0).toUpperCase() + s.slice(1));
  const gap = fc.constantFrom(' ', ', ', '! ', '. ', ' 🙂 ', ' 👍🏾 ', '... ');

  it('catches any run of formulas in any casing and punctuation (property)', async () => {
    const message = fc.tuple(formula, fc.array(fc.tuple(gap, fc.oneof(formula, filler), casing), { maxLength: 4 }), casing).map(([first, rest, c]) => c(first) + rest.map(([g, w, k]) => g + k(w)).join(''));
    await fc.assert(fc.asyncProperty(message, async (m) => (await route(m)).route === 'no_request'));
  });

  it('lets no other word through: one word outside the grammar anywhere hands the message to the classifier (property)', async () => {
    const outside = fc.stringMatching(/^[a-z]{2,10}$/u).filter((w) => !['hi', 'hii', 'hey', 'heya', 'hiya', 'howdy', 'hello', 'greetings', 'morning', 'thanks', 'thankyou', 'thanx', 'thx', 'ty', 'tysm', 'cheers', 'appreciated', 'ok', 'okay', 'okey', 'kk', 'alright', 'gotcha', 'great', 'cool', 'perfect', 'awesome', 'nice', 'yes', 'yeah', 'yep', 'yup', 'sure', 'understood', 'helpful', 'there', 'all', 'everyone', 'folks', 'guys', 'team', 'again'].includes(w));
    const message = fc.tuple(fc.array(formula, { maxLength: 3 }), outside, fc.array(fc.oneof(formula, filler), { maxLength: 3 })).map(([before, w, after]) => [...before, w, ...after].join(' '));
    await fc.assert(fc.asyncProperty(message, async (m) => (await route(m)).route === 'crisis'));
  });

  it('lets no other emoji through: one outside the grammar anywhere hands the message to the classifier (property)', async () => {
    const acknowledgements = new Set(['👍', '👌', '🙂', '😊', '🙏', '✅']);
    const emoji = fc.integer({ min: 0x1f300, max: 0x1faff }).map((c) => String.fromCodePoint(c)).filter((e) => /^\p{Extended_Pictographic}$/u.test(e) && !acknowledgements.has(e));
    const message = fc.tuple(fc.array(formula, { maxLength: 3 }), emoji, fc.array(fc.oneof(formula, filler), { maxLength: 3 })).map(([before, e, after]) => [...before, e, ...after].join(' '));
    await fc.assert(fc.asyncProperty(message, async (m) => (await route(m)).route === 'crisis'));
  });
});
