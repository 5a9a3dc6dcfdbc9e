import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { actedForAge, actingFor, namesAnotherPerson, speaksOnlyOfMinors } from '../src/policy/index.js';

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

  it('reads whether the one a question is about is an adult, a grown son or daughter, a minor, or not said (candidate AA)', () => {
    const expected: Record<string, readonly string[]> = {
      adult: [
        "am i allowed to be my 80 year old mom's proxy",
        "my dad has dementia and can't log in anymore. am i allowed to get into his portal",
        'my father has dementia. as his daughter, am i allowed to get proxy access?',
        "i'm my mom's caregiver, can i get proxy access to her account",
        "how do i get my dad's medical records, he passed away last month",
        'can my wife cancel my appointment for me?',
        'can my adult son book appointments for me?',
        'can i book a visit for my husband?',
      ],
      grown_child: [
        "he turned 18 last month, can i still see my son's records",
        'my daughter is 19, can i still see her portal?',
        "can i get into my adult child's account?",
        'my son is 20, is he too old for the urgent care?',
        'what happens to my proxy access when my son turns 18',
      ],
      minor: ["can i get proxy access to my 15 year old son's account?", "can i see my kid's records?", "can my mom see my records? i'm 15"],
    };
    for (const [age, questions] of Object.entries(expected)) for (const q of questions) expect(actedForAge(q), q).toBe(age);
    for (const q of [
      'can my mom cancel my appointment for me?',
      'my son has asthma, can i reschedule my appointment',
      "can i bring my kid to my mom's appointment",
      'i moved here 5 years ago, how do i transfer records?',
      "i'm 10 minutes late, can i still be seen?",
      'how do i book a physical?',
      // Two relations: which one is acted for, the words do not say.
      'can my mom take my daughter to her checkup instead of me',
      // An age alone asks about the patient, not about acting for anyone.
      "is the clinic taking new patients? it's for me, i'm 34",
    ]) {
      expect(actedForAge(q), q).toBeNull();
    }
  });

  it("reads a unit as a minors' rule only when it speaks of a child and of no adult; an age of majority is a grown son's or daughter's (candidate AA)", () => {
    const minors = [
      "A parent or legal guardian can have full proxy access to a child's account until the child turns 12.",
      "Parents and legal guardians can manage a child's care in the portal through proxy access.",
      'Children: Parents and legal guardians may request records for children under 12.',
      'Patients aged 12 to 17 may have their own portal account. Teens control their confidential visits.',
    ];
    const majority = [
      "A parent's proxy access ends automatically on the patient's 18th birthday.",
      'A parent or legal guardian may book appointments for a patient under 18.',
      // Candidate AA′: an age of majority said as when something happens.
      'Proxy access for children: At 18, proxy access ends automatically.',
      "A parent's proxy access to a child's account ends at age 18.",
    ];
    const others = [
      'Adults can give proxy access to a family member; parents of children under 12 get it automatically.',
      'Patients from 3 months through 21 years old. Babies younger than 3 months are seen at the pediatric office.',
      "Can I manage my child's or my parent's account? Yes, with proxy access.",
      'Billing discusses an account only with the patient, the guarantor, a person the patient has named, or a parent or guardian of a minor patient.',
      'Seniors 65+ get the flu shot free; children under 5 too.',
      'Patients 18 and older may name a proxy. Parents may see records of children under 12.',
      'A caregiver of a child may book visits.',
      'Cancel under 24 hours before your visit and a fee applies.',
      'You may name a proxy to access your account.',
      // A time of day or a length of time after "at" is no age.
      'Walk-ins close at 18:00 on weekdays and at 19 h on Fridays.',
      'The desk calls back at 20 minutes past the hour, or at 18.30.',
    ];
    for (const text of minors) for (const age of ['adult', 'grown_child'] as const) expect(speaksOnlyOfMinors(text, age), `${age}: ${text}`).toBe(true);
    for (const text of majority) {
      expect(speaksOnlyOfMinors(text, 'adult'), text).toBe(true);
      expect(speaksOnlyOfMinors(text, 'grown_child'), text).toBe(false);
    }
    for (const text of others) for (const age of ['adult', 'grown_child'] as const) expect(speaksOnlyOfMinors(text, age), `${age}: ${text}`).toBe(false);
  });

  it('an adult relation named as the one acted for is read as an adult, whatever else is asked (property)', () => {
    const adultRelation = fc.constantFrom('mom', 'dad', 'mother', 'father', 'husband', 'wife', 'grandma', 'grandpa', 'aunt', 'uncle', 'partner');
    const thing = fc.constantFrom('records', 'portal account', 'appointments', 'bill', 'prescriptions');
    const ask = fc.constantFrom("can i get access to my {r}'s {t}?", "i'm my {r}'s proxy, how do i see the {t}", 'how do i manage the {t} for my {r}');
    fc.assert(fc.property(ask, adultRelation, thing, (a, r, t) => actedForAge(a.replace('{r}', r).replace('{t}', t)) === 'adult'));
  });
});
