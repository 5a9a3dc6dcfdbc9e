import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createScopeRouterFor } from '../src/main.js';
import { normalizeQuestion } from '../src/policy/index.js';
import { segmentsOf, type ScopeRouter } from '../src/scope/index.js';
import { tempDir, testConfig } from './helpers.js';

const phrasings = parse(readFileSync(new URL('./fixtures/scope-phrasings.yaml', import.meta.url), 'utf8')) as { emergency: string[] };
const ASSISTANT = { organization: 'Test Health', appointment_channel: 'call 555-0100', entities: {} };

let router: ScopeRouter;
beforeAll(async () => {
  router = await createScopeRouterFor(ASSISTANT, testConfig(await tempDir()));
});

const route = (message: string) => router.route({ text: normalizeQuestion(message).normalized });

describe('scope routing', () => {
  it('routes every dev emergency phrasing away from an appointment answer', async () => {
    for (const q of phrasings.emergency) expect(['emergency', 'crisis'], q).toContain((await route(q)).route);
  });

  it('keeps safety first when a booking request is attached, before or after', async () => {
    for (const q of [
      "I've been thinking about ending my life. Can I get an appointment with someone this week?",
      'is the clinic open today? my husband hit his head, he is on blood thinners and now he keeps throwing up',
    ]) {
      expect(['emergency', 'crisis'], q).toContain((await route(q)).route);
    }
  });

  it('reads a long message sentence by sentence, so a crisis line anywhere in it is routed', async () => {
    const filler = 'I have a question about parking at the clinic and whether the garage validates tickets for patients. ';
    const message = `${filler.repeat(40)}Honestly everyone would be better off without me. ${filler.repeat(40)}`;
    expect(message.length).toBeGreaterThan(8000);
    expect(segmentsOf(normalizeQuestion(message).normalized).length).toBeGreaterThan(40);
    const r = await route(message);
    expect(r.route).toBe('crisis');
    expect(r.segments).toBeGreaterThan(40);
  });

  it('keeps administrative questions with clinical words in scope', async () => {
    for (const q of ['Can I get a Spanish interpreter for my appointment?', 'What are the lab hours for a fasting blood draw?']) {
      expect((await route(q)).route, q).toBe('in_scope');
    }
  });

  it('reads a message wholly in another language to the language route, and leaves an English one with a foreign-looking clause to the classifier', async () => {
    const spanish = await route('Necesito cambiar mi cita del lunes para el miércoles por favor, tengo que trabajar');
    expect(spanish).toMatchObject({ route: 'language', decided_by: 'language', language: { code: 'es', english: false, clause: null } });
    // One clause in Spanish, the rest English: the classifier reads it, and its emergency reading wins.
    const breathing = await route("my dad's lips are turning blue and he can't catch his breath, por favor ayúdenme rápido, can we come in now?");
    expect(breathing).toMatchObject({ route: 'emergency', decided_by: 'model', language: { english: false, code: 'es', clause: 'por favor ayúdenme rápido' } });
    // A clause that reads as another language only by a hair is English.
    const allergy = await route('had a crab cake at the church potluck, im allergic to shellfish. is there a walk in tonight');
    expect(allergy.language).toMatchObject({ english: true, clause: null });
  });

  it('answers emoji, mixed scripts and punctuation with a routing decision, never a crash', async () => {
    for (const q of ['😭', '¿Puedo cambiar mi cita? 予約を変更できますか', '?!?!']) {
      expect(['in_scope', 'clinical', 'emergency', 'crisis', 'language']).toContain((await route(q)).route);
    }
    // An emoji that says "ok" or "thanks" asks nothing (session 40).
    expect(await route('🙂')).toMatchObject({ route: 'no_request', decided_by: 'phatic' });
  });
});
