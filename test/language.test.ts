import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLanguageIdentifier, loadLanguageModel, type LanguageIdentifier, type LanguageModel } from '../src/scope/index.js';
import { deploymentWords, routingMessage } from '../src/policy/index.js';

let model: LanguageModel;
let named: LanguageIdentifier;
let unnamed: LanguageIdentifier;
const identify = (text: string) => named.identify(text);
const bare = (text: string) => unnamed.identify(text);
beforeAll(async () => {
  model = await loadLanguageModel();
  named = createLanguageIdentifier(model, ['Coldiron Flats', 'Sedge Crossing']);
  unnamed = createLanguageIdentifier(model, []);
});

describe('language identifier', () => {
  it('reads a question in another language as one the assistant cannot read', () => {
    expect(identify('¿A qué hora abre la clínica el sábado?')).toEqual({ language: 'es', english: false, reliable: true, clause: null });
    expect(identify('Posso remarcar minha consulta para sexta-feira?')).toMatchObject({ language: 'pt', english: false });
    expect(identify('Tôi có thể đổi lịch hẹn sang thứ Sáu không?')).toMatchObject({ language: 'vi', english: false });
  });

  it('reads a language it does not know as another language, without claiming which', () => {
    // Haitian Creole: eld has no model of it.
    const r = identify('Mwen bezwen chanje randevou mwen pou vandredi');
    expect(r.english).toBe(false);
    expect(r.language).not.toBe('ht');
  });

  it('reads a short message in another script however short', () => {
    expect(identify('诊所几点开门')).toMatchObject({ english: false });
    expect(identify('متى تفتح العيادة؟')).toMatchObject({ english: false });
  });

  it('finds a clause in another language inside a message that reads as English', () => {
    const r = identify('can I get an appointment con la terapeuta? honestly ya no quiero vivir');
    expect(r).toMatchObject({ english: false, language: 'es' });
    expect(r.clause).toContain('no quiero vivir');
  });

  it('keeps English questions that name things, use slang or mention another language', () => {
    for (const q of ['Can I get a Spanish interpreter for my appointment?', 'is sedge crossing open on christmas eve', 'r u guys open sat', 'how much is the no show fee lol', 'ok']) {
      expect(identify(q).english, q).toBe(true);
    }
  });

  it("masks the deployment's names before reading: an unknown site name alone can read as another language", () => {
    expect(identify('coldiron flats lab hrs? sat?').english).toBe(true);
    expect(bare('coldiron flats lab hrs? sat?').english).toBe(false);
  });

  it("knows the capitalized words of the organization and its appointment channel as the deployment's own", () => {
    const words = deploymentWords({ organization: 'Goldenreed Senior Health', appointment_channel: 'call 555-0187 (TTY 711) or use the ReedLink patient portal', entities: {} });
    expect(words).toEqual(['Goldenreed', 'Senior', 'Health', 'TTY', 'ReedLink']);
    expect(bare('forgot my reedlink password ugh').english).toBe(false);
    expect(createLanguageIdentifier(model, words).identify('forgot my reedlink password ugh').english).toBe(true);
  });

  it('answers every string with a reading, a clause only when another language decided', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = identify(text);
        expect(typeof r.english).toBe('boolean');
        if (r.clause !== null) expect(r.english).toBe(false);
      }),
    );
  });
});

describe("the packed database (training/language/export-eld.ts)", () => {
  // The package's own detector over its own database (0.4 s to import): the packed form must read every text alike.
  let reference: LanguageModel['detector'];
  beforeAll(async () => {
    reference = (await import('eld/small')).eld;
  });
  const reading = (detector: LanguageModel['detector'], text: string) => {
    const r = detector.detect(text);
    return { language: r.language, reliable: r.isReliable(), scores: r.getScores() };
  };

  it("gives the package's language, reliability and every score, for messages in many languages and scripts", () => {
    const texts = [
      'Can I get blood drawn at the Harbor lab without an appointment?',
      '¿A qué hora abre la clínica el sábado?',
      'Posso remarcar minha consulta para sexta-feira?',
      'Tôi có thể đổi lịch hẹn sang thứ Sáu không?',
      'Mwen bezwen chanje randevou mwen pou vandredi',
      '诊所几点开门',
      'متى تفتح العيادة؟',
      'can I get an appointment con la terapeuta? honestly ya no quiero vivir',
      'Je voudrais annuler mon rendez-vous de demain matin.',
      'Можно ли перенести приём на пятницу?',
    ];
    for (const text of texts) expect(reading(model.detector, text), text).toEqual(reading(reference, text));
  });

  it('and for any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120, unit: fc.constantFrom(' ', ...'a b c d e é ñ ç ã õ ø ü , . ? ¿ ! ß ш ж ф ع ر ب ي 中 文 日 本 語 α β γ'.split(' ')) }), (text) => {
        expect(reading(model.detector, text)).toEqual(reading(reference, text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the routing message for another language', () => {
  const assistant = { organization: 'Test Health', appointment_channel: 'call 555-0100', entities: {} };

  it('comes in the patient’s language first, then in English, with 911, 988 and the channel in both (its numbers, in the patient’s language)', () => {
    const message = routingMessage('language', assistant, 'es');
    const [spanish, english] = message.split('\n\n');
    expect(spanish).toMatch(/^Solo puedo responder/u);
    expect(english).toMatch(/^I can only answer questions written in English/u);
    for (const part of [spanish, english]) for (const needed of ['911', '988', '555-0100']) expect(part).toContain(needed);
    expect(english).toContain('call 555-0100');
    // No English words spliced into the Spanish sentence; a channel without a number is given as written.
    const channel = { ...assistant, appointment_channel: 'call the scheduling line at (555) 014-2000 or use the patient portal' };
    expect(routingMessage('language', channel, 'es').split('\n\n')[0]).toMatch(/pida un intérprete: \(555\) 014-2000\.$/u);
    expect(routingMessage('language', { ...assistant, appointment_channel: 'use the patient portal' }, 'es').split('\n\n')[0]).toMatch(/intérprete: use the patient portal\.$/u);
  });

  it('takes the deployment’s own translations before the built-in ones', () => {
    const own = { ...assistant, routing_messages: { translations: { es: 'Solo en inglés. Emergencias: 911. Crisis: 988. {channel}.', nl: 'Alleen Engels. Nood: 911. Crisis: 988.' } } };
    expect(routingMessage('language', own, 'es')).toMatch(/^Solo en inglés\. Emergencias: 911\. Crisis: 988\. call 555-0100\.\n\nI can only answer/u);
    expect(routingMessage('language', own, 'nl')).toMatch(/^Alleen Engels\./u);
    expect(routingMessage('language', own, 'pt')).toMatch(/^Só posso responder/u);
  });

  it('is English alone for a language without a written text, and keeps the deployment’s own English', () => {
    expect(routingMessage('language', assistant, 'nl')).not.toContain('\n\n');
    expect(routingMessage('language', { ...assistant, routing_messages: { language: 'English only, sorry. Call 911 or 988.' } }, 'fr')).toMatch(/\n\nEnglish only, sorry\. Call 911 or 988\.$/u);
  });
});
