import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { actingFor, namesAnotherPerson } from '../src/policy/index.js';

describe('who acts for whom', () => {
  it('finds someone acting for the patient, and the patient acting for someone', () => {
    expect(actingFor('can my wife call in and cancel my appointment for me?')).toBe('my wife');
    expect(actingFor('can my neighbor pick up my medical records for me?')).toBe('my neighbor');
    expect(actingFor('can my adult son book appointments for me without being on my account?')).toBe('my son');
    expect(actingFor('if my husband calls, can he reschedule my appointment?')).toBe('my husband');
    expect(actingFor("i'm my mom's proxy in the portal. can i cancel her appointment?")).toBe('proxy');
    expect(actingFor("im my brother's court appointed guardian, what do i bring")).toBe('guardian');
    expect(actingFor("my dad has dementia and can't manage his account anymore. as his daughter, am i allowed in?")).toBe('daughter');
  });

  it('is not fooled by a relative who is the patient, or by a relative beside the patient’s own question', () => {
    for (const q of [
      'can my son get an mri at the north clinic?',
      'when can my kid get a flu shot at school?',
      'my mom is on medicaid and she forgot her appointment last week',
      "can my daughter's well-child check be done over video?",
      'my son has asthma, can i reschedule my appointment',
      'can i bring my husband to my appointment?',
    ]) {
      expect(actingFor(q), q).toBeNull();
    }
  });

  it('reads another person in a unit, never the patient alone', () => {
    for (const text of ['Anyone may make a payment with the account number.', 'A family member may pick up records with a signed form.', 'Proxies can book visits.', 'A parent or legal guardian must come to the first visit.', 'Minors, guardians and proxy access: Submit the form in the portal.']) {
      expect(namesAnotherPerson(text), text).toBe(true);
    }
    for (const text of ['You can cancel in the portal until 24 hours before.', 'Bring a photo ID to pick up records.', 'Adults 18 and older can book online.', 'Patients whose coverage is Medicaid are not charged.']) {
      expect(namesAnotherPerson(text), text).toBe(false);
    }
  });

  const relation = fc.constantFrom('wife', 'husband', 'son', 'daughter', 'mom', 'dad', 'sister', 'brother', 'neighbor', 'friend', 'grandma', 'partner');
  const action = fc.constantFrom('cancel', 'pick up', 'reschedule', 'book', 'request', 'pay');
  const affair = fc.constantFrom('appointment', 'records', 'prescription', 'bill', 'referral');
  const asker = fc.constantFrom('can', 'could', 'may', 'will', 'is it ok if');

  it('any relation asked to act on any of the patient’s own affairs is found (property)', () => {
    fc.assert(fc.property(asker, relation, action, affair, (a, r, v, x) => actingFor(`${a === 'is it ok if' ? 'is it ok if' : a} my ${r} ${v} my ${x}?`) === `my ${r}`));
  });

  it('a question naming no relation or standing is never read as acting for someone (property)', () => {
    const word = fc.constantFrom('can', 'i', 'my', 'cancel', 'appointment', 'for', 'me', 'records', 'pick', 'up', 'the', 'clinic', 'is', 'open', 'as', 'his', 'her', "i'm", 'portal', 'bill');
    fc.assert(fc.property(fc.array(word, { minLength: 1, maxLength: 14 }), (words) => actingFor(words.join(' ')) === null));
  });

  it('a relation that owns the thing ("my son’s appointment") is the patient, not an agent (property)', () => {
    fc.assert(fc.property(relation, action, affair, (r, v, x) => actingFor(`can i ${v} my ${r}'s ${x}?`) === null));
  });
});
