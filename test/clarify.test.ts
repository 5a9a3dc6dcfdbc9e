import { describe, expect, it } from 'vitest';
import type { AssistantConfig } from '../src/domain/index.js';
import { clarifyQuestion, mentionedEntities, normalizeQuestion } from '../src/policy/index.js';

const assistant: AssistantConfig = {
  organization: 'Maple Valley Health',
  appointment_channel: 'call 555-0142',
  entities: { clinic: { harbor: ['Harbor Clinic', 'Harbor'], eastside: ['Eastside Clinic', 'Eastside'] } },
};
const harbor = { named: { clinic: ['harbor'] }, row: false, score: 0.9 };
const eastside = { named: { clinic: ['eastside'] }, row: false, score: 0.7 };
const systemWide = { named: {}, row: false, score: 0.95 };
const bothClinics = { named: { clinic: ['harbor', 'eastside'] }, row: false, score: 0.95 };
const rowPerClinic = { named: { clinic: ['harbor', 'eastside'] }, row: true, score: 0.95 };

describe('clarification', () => {
  it('asks which clinic when the best answer is clinic-specific and another clinic also answers', () => {
    const c = clarifyQuestion({ candidates: [eastside, harbor], mentioned: {}, assistant });
    expect(c?.question).toBe('Which clinic do you mean: Harbor Clinic or Eastside Clinic?');
    expect(c?.options).toEqual(['harbor', 'eastside']);
  });

  it('asks which clinic when the best answer is a table row with a column per clinic', () => {
    expect(clarifyQuestion({ candidates: [rowPerClinic], mentioned: {}, assistant })?.options).toEqual(['harbor', 'eastside']);
  });

  it('does not ask when the question names the clinic', () => {
    const mentioned = mentionedEntities(normalizeQuestion('What are the harbor clinic hours?').normalized, assistant);
    expect(mentioned).toEqual({ clinic: ['harbor'] });
    expect(clarifyQuestion({ candidates: [harbor, eastside], mentioned, assistant })).toBeNull();
  });

  it('asks which clinic, offering every clinic, when a system-wide rule answers beside one clinic\'s own rule (an override)', () => {
    for (const candidates of [[systemWide, harbor], [systemWide, harbor, eastside]]) {
      expect(clarifyQuestion({ candidates, mentioned: {}, assistant })?.question).toBe('Which clinic do you mean: Harbor Clinic or Eastside Clinic?');
    }
  });

  it('does not ask when a system-wide rule or a sentence naming every clinic answers alone, or only one clinic answers', () => {
    expect(clarifyQuestion({ candidates: [systemWide], mentioned: {}, assistant })).toBeNull();
    expect(clarifyQuestion({ candidates: [bothClinics, harbor, eastside], mentioned: {}, assistant })).toBeNull();
    expect(clarifyQuestion({ candidates: [harbor], mentioned: {}, assistant })).toBeNull();
    expect(clarifyQuestion({ candidates: [], mentioned: {}, assistant })).toBeNull();
  });

  it('finds entity aliases as whole words only', () => {
    expect(mentionedEntities('is the harborview cafe open?', assistant)).toEqual({});
    expect(mentionedEntities('parking at eastside or harbor?', assistant)).toEqual({ clinic: ['harbor', 'eastside'] });
  });
});
