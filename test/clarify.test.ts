import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantConfig } from '../src/domain/index.js';
import { clarifyQuestion, eachValueAnswer, mentionedEntities, normalizeQuestion, placeNeutral, quantifiedTypes, quoteLead, type ClarifyCandidate } from '../src/policy/index.js';

const assistant: AssistantConfig = {
  organization: 'Maple Valley Health',
  appointment_channel: 'call 555-0142',
  entities: { clinic: { harbor: ['Harbor Clinic', 'Harbor'], eastside: ['Eastside Clinic', 'Eastside'] } },
};
const harbor = { label: 'S1', named: { clinic: ['harbor'] }, row: null, score: 0.9 };
const eastside = { label: 'S2', named: { clinic: ['eastside'] }, row: null, score: 0.7 };
const systemWide = { label: 'S3', named: {}, row: null, score: 0.95 };
const bothClinics = { label: 'S4', named: { clinic: ['harbor', 'eastside'] }, row: null, score: 0.95 };
const row = (harborSays: string, eastsideSays: string) => ({
  label: 'S5',
  named: { clinic: ['harbor', 'eastside'] },
  row: [
    { header: 'Date', value: 'Thursday, December 24' },
    { header: 'Harbor Clinic', value: harborSays },
    { header: 'Eastside Clinic', value: eastsideSays },
  ],
  score: 0.95,
});
const rowPerClinic = row('8 am to noon', 'Closed');

describe('clarification', () => {
  it('asks which clinic when the best answer is clinic-specific and another clinic also answers', () => {
    const c = clarifyQuestion({ candidates: [eastside, harbor], mentioned: {}, assistant });
    expect(c?.question).toBe('Which clinic do you mean: Harbor Clinic or Eastside Clinic?');
    expect(c?.options).toEqual(['harbor', 'eastside']);
    // The trace's detail says why, and which passages show it, best first.
    expect(c).toMatchObject({ ground: 'sites differ', evidence: ['S1', 'S2'] });
  });

  it('asks which clinic when the best answer is a table row with a column per clinic', () => {
    expect(clarifyQuestion({ candidates: [rowPerClinic], mentioned: {}, assistant })).toMatchObject({ options: ['harbor', 'eastside'], ground: 'a row per site', evidence: ['S5'] });
  });

  it('does not ask when a table row says the same under every clinic\'s column: it answers for all of them', () => {
    expect(clarifyQuestion({ candidates: [row('Closed', 'closed.')], mentioned: {}, assistant })).toBeNull();
    expect(clarifyQuestion({ candidates: [row('Closed', 'Closed'), systemWide], mentioned: {}, assistant })).toBeNull();
  });

  it('asks when a row of a per-site table names another site in passing', () => {
    const perSite = { label: 'S6', named: { clinic: ['harbor', 'eastside'] }, row: [{ header: 'Site', value: 'Harbor Clinic' }, { header: 'Parking', value: 'use the Eastside garage' }], score: 0.95 };
    expect(clarifyQuestion({ candidates: [perSite], mentioned: {}, assistant })?.options).toEqual(['harbor', 'eastside']);
  });

  it('does not ask when the question names the clinic', () => {
    const mentioned = mentionedEntities(normalizeQuestion('What are the harbor clinic hours?').normalized, assistant);
    expect(mentioned).toEqual({ clinic: ['harbor'] });
    expect(clarifyQuestion({ candidates: [harbor, eastside], mentioned, assistant })).toBeNull();
  });

  it('answers a question about every clinic with a row that has a column per clinic, and still asks when one clinic\'s own text leads', () => {
    const every = quantifiedTypes(normalizeQuestion('are any of your locations open on thanksgiving?').normalized, assistant);
    expect(every).toEqual(['clinic']);
    expect(clarifyQuestion({ candidates: [rowPerClinic], mentioned: {}, assistant })).not.toBeNull();
    expect(clarifyQuestion({ candidates: [rowPerClinic, harbor], mentioned: {}, every, assistant })).toBeNull();
    // One clinic's page answering for itself does not answer for every clinic, nor does a row of a per-site table that
    // names another clinic in passing: quoting either alone would be a guess.
    expect(clarifyQuestion({ candidates: [harbor, eastside], mentioned: {}, every, assistant })?.ground).toBe('sites differ');
    const perSite = { label: 'S6', named: { clinic: ['harbor', 'eastside'] }, row: [{ header: 'Site', value: 'Harbor Clinic' }, { header: 'Parking', value: 'use the Eastside garage' }], score: 0.95 };
    expect(clarifyQuestion({ candidates: [perSite], mentioned: {}, every, assistant })?.ground).toBe('a row per site');
  });

  it('answers a question about every clinic clinic by clinic when the texts are on each clinic\'s pages: the system-wide rule first, then each clinic\'s best', () => {
    const every = ['clinic'];
    const harborLesser = { ...harbor, label: 'S7', score: 0.5 };
    const answer = (candidates: readonly ClarifyCandidate[], withEvery = every) => {
      const options = { candidates, mentioned: {}, every: withEvery, assistant };
      const asked = clarifyQuestion(options);
      return asked === null ? null : eachValueAnswer(options, asked);
    };
    expect(answer([eastside, harborLesser, harbor])?.quoted.map((q) => [q.candidate.label, q.value])).toEqual([['S1', 'harbor'], ['S2', 'eastside']]);
    expect(answer([eastside, systemWide, harbor])?.quoted.map((q) => [q.candidate.label, q.value])).toEqual([['S3', null], ['S1', 'harbor'], ['S2', 'eastside']]);
    // One clinic's own text alone: it is the answer for that clinic (the question asks which of them).
    expect(answer([harbor])?.quoted.map((q) => q.value)).toEqual(['harbor']);
    // Not a question about every clinic, or only a row naming both: the clarifying question stands.
    expect(answer([harbor, eastside], [])).toBeNull();
    const perSite = { label: 'S6', named: { clinic: ['harbor', 'eastside'] }, row: [{ header: 'Site', value: 'Harbor Clinic' }, { header: 'Parking', value: 'use the Eastside garage' }], score: 0.95 };
    expect(answer([perSite])).toBeNull();
  });

  it('leads a quote for one clinic with the innermost heading naming it, else its page title', () => {
    const page = { title: 'Holiday hours 2026-2027', headings: ['Holiday hours, November to January', 'Harbor Clinic', 'Closures'] };
    expect(quoteLead(page, 'clinic', 'harbor', assistant)).toBe('Harbor Clinic');
    expect(quoteLead(page, 'clinic', 'eastside', assistant)).toBe('Holiday hours 2026-2027');
    expect(quoteLead(page, 'clinic', null, assistant)).toBe('Holiday hours 2026-2027');
  });

  it('asks which clinic, offering every clinic, when a system-wide rule answers beside one clinic\'s own rule (an override)', () => {
    const cases = [
      [[systemWide, harbor], ['S3', 'S1']],
      [[eastside, systemWide, harbor], ['S3', 'S1', 'S2']],
    ] as const;
    for (const [candidates, evidence] of cases) {
      expect(clarifyQuestion({ candidates, mentioned: {}, assistant })).toMatchObject({
        question: 'Which clinic do you mean: Harbor Clinic or Eastside Clinic?',
        ground: 'an override',
        evidence,
      });
    }
  });

  it('asks which clinic, offering every clinic, when only one clinic\'s own rule answers: the other may have its own', () => {
    expect(clarifyQuestion({ candidates: [harbor], mentioned: {}, assistant })).toMatchObject({ options: ['harbor', 'eastside'], ground: 'one site alone', evidence: ['S1'] });
  });

  it('does not ask when a system-wide rule or a sentence naming every clinic answers alone, or the deployment has one clinic', () => {
    expect(clarifyQuestion({ candidates: [systemWide], mentioned: {}, assistant })).toBeNull();
    expect(clarifyQuestion({ candidates: [bothClinics, harbor, eastside], mentioned: {}, assistant })).toBeNull();
    expect(clarifyQuestion({ candidates: [], mentioned: {}, assistant })).toBeNull();
    const oneClinic: AssistantConfig = { ...assistant, entities: { clinic: { harbor: ['Harbor Clinic'] } } };
    expect(clarifyQuestion({ candidates: [harbor], mentioned: {}, assistant: oneClinic })).toBeNull();
  });

  it('finds entity aliases as whole words only', () => {
    expect(mentionedEntities('is the harborview cafe open?', assistant)).toEqual({});
    expect(mentionedEntities('parking at eastside or harbor?', assistant)).toEqual({ clinic: ['harbor', 'eastside'] });
  });

  const sites: AssistantConfig = {
    ...assistant,
    entities: { site: { 'pellow-junction': ['Pellow Junction Clinic', 'Pellow'], 'quillon-ford': ['Quillon Ford Clinic', 'Quillon Ford'], dunmere: ['Dunmere Hospital', 'Dunmere'] } },
  };
  it('reads a misspelled site name in a question (one edit, first letter right, six letters or more), never in policy text', () => {
    expect(mentionedEntities('is quilon ford open saturday', sites, { typos: true })).toEqual({ site: ['quillon-ford'] });
    expect(mentionedEntities('parking at dunmer hospital?', sites, { typos: true })).toEqual({ site: ['dunmere'] });
    expect(mentionedEntities('parking at dunmer hospital?', sites)).toEqual({});
    // Another word, not a typo: a different first letter, or a short name.
    expect(mentionedEntities('do you give yellow fever shots?', sites, { typos: true })).toEqual({});
  });

  it('reads a question about every value of a type: a quantifier before the type\'s name, or before any place noun when the type is a place', () => {
    const about = (q: string, a: AssistantConfig = assistant): string[] => quantifiedTypes(normalizeQuestion(q).normalized, a);
    for (const q of ['are any of your clinics open on thanksgiving?', "hours on new year's eve at all four locations?", 'which locations are open the friday after thanksgiving', 'christmas eve hours for all your sites please', 'is any office open today', "any of y'all's clinics open christmas"]) {
      expect(about(q), q).toEqual(['clinic']);
    }
    for (const q of ['is the clinic open on saturday', 'what time does harbor clinic close', 'are all appointments 15 minutes', 'which doctor is on call', 'my clinic moved, any news?']) {
      expect(about(q), q).toEqual([]);
    }
    // A type that is not a place is read under its own name only.
    const providers: AssistantConfig = { ...assistant, entities: { provider: { lee: ['Dr. Lee'] } } };
    expect(about('do all your providers take new patients', providers)).toEqual(['provider']);
    expect(about('are all your clinics open', providers)).toEqual([]);
  });

  it('says the places a question names as "the <type>", for the judge reading a unit about no place (candidate SN)', () => {
    const neutral = (q: string, a: AssistantConfig = assistant): string => placeNeutral(normalizeQuestion(q).normalized, a, ['clinic']);
    expect(neutral('is harbor clinic open next friday?')).toBe('is the clinic open next friday?');
    expect(neutral('Until what time can I get blood drawn at the Harbor lab?')).toBe('until what time can i get blood drawn at the clinic lab?');
    expect(neutral("what are harbor's hours")).toBe("what are the clinic's hours");
    expect(neutral('is the harbour clinic or eastside open on dec 24')).toBe('is the clinic or the clinic open on dec 24');
    expect(neutral('is the clinic open on saturday?')).toBe('is the clinic open on saturday?');
    // Only the types asked for: a provider stays named.
    const both: AssistantConfig = { ...assistant, entities: { ...assistant.entities, provider: { lee: ['Dr. Lee'] } } };
    expect(placeNeutral('does dr. lee see patients at harbor?', both, ['clinic'])).toBe('does dr. lee see patients at the clinic?');
  });

  it('no alias of a named place is left in the neutral question, and a question naming none is unchanged (property)', () => {
    const name = fc.constantFrom('harbor', 'Harbor Clinic', 'eastside clinic', 'EASTSIDE');
    const filler = fc.array(fc.constantFrom('is', 'the', 'open', 'on', 'parking', 'at', 'saturday', 'lab', 'clinic', 'where', 'hours?'), { maxLength: 6 });
    fc.assert(
      fc.property(filler, fc.option(name, { nil: undefined }), filler, (before, n, after) => {
        const text = [...before, ...(n === undefined ? [] : [n]), ...after].join(' ');
        const said = placeNeutral(text, assistant, ['clinic']);
        return n === undefined ? said === text : Object.keys(mentionedEntities(said, assistant, { typos: true })).length === 0;
      }),
    );
  });

  it('a quantifier, an owner and a count before a place noun, in any case and number, read as every site (property)', () => {
    const quantifier = fc.constantFrom('all', 'every', 'each', 'any', 'both', 'which', 'ALL', 'Any');
    const owner = fc.constantFrom('', 'of your ', 'your ', 'the ', 'of the ', 'ur ');
    const count = fc.constantFrom('', 'four ', '3 ');
    const noun = fc.constantFrom('site', 'sites', 'clinic', 'clinics', 'location', 'locations', 'offices', 'centers', 'branches');
    const filler = fc.array(fc.constantFrom('is', 'open', 'on', 'parking', 'at', 'saturday', 'lab', 'hours', 'for'), { maxLength: 5 });
    fc.assert(
      fc.property(filler, quantifier, owner, count, noun, filler, (before, q, o, c, n, after) => {
        const text = [...before, `${q} ${o}${c}${n}`, ...after].join(' ');
        return JSON.stringify(quantifiedTypes(normalizeQuestion(text).normalized, assistant)) === '["clinic"]';
      }),
    );
  });

  it('a name is found wherever it stands, and typo repair never loses an exact name (property)', () => {
    const name = fc.constantFrom('pellow', 'quillon ford', 'dunmere hospital');
    const filler = fc.array(fc.constantFrom('is', 'the', 'open', 'on', 'parking', 'at', 'saturday', 'lab', 'where'), { maxLength: 6 });
    fc.assert(
      fc.property(filler, name, filler, (before, n, after) => {
        const text = [...before, n, ...after].join(' ');
        const exact = mentionedEntities(text, sites);
        const repaired = mentionedEntities(text, sites, { typos: true });
        return (exact.site?.length ?? 0) === 1 && JSON.stringify(repaired) === JSON.stringify(exact);
      }),
    );
  });
});
