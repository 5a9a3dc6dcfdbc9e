import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IsoDate, RevisionId, SourceId } from '../src/domain/index.js';
import type { Runtime } from '../src/main.js';
import { askedPeriods, periodExclusion } from '../src/policy/index.js';
import { demoRuntime } from './helpers.js';

const TODAY = '2026-12-03' as IsoDate;

describe('periods a question asks about', () => {
  it('resolves relative and named periods against the asking day, as precisely as they were said', () => {
    const of = (q: string) => askedPeriods(q, TODAY).map(({ from, to }) => [from, to]);
    expect(of('Was it open the day after Thanksgiving last year?')).toContainEqual(['2025-01-01', '2025-12-31']);
    expect(of('will the fee still be $40 next year?')).toEqual([['2027-01-01', '2027-12-31']]);
    expect(of('how much will a no-show cost in 2027')).toEqual([['2027-01-01', '2027-12-31']]);
    expect(of('my appointment is next week, can I move it online?')).toEqual([['2026-12-10', '2026-12-10']]);
    expect(of('are you open on March 3?')[0]?.[0]).toBe('2027-03-03');
    expect(of('is the clinic open july 4th')).toEqual([['2027-07-04', '2027-07-04']]);
    expect(of('what were the hours in 2025?')).toEqual([['2025-01-01', '2025-12-31']]);
    expect(of('what are the days and the hours of the lab?')).toEqual([]);
    // The period of the asking sentence, not of the context around it.
    expect(of('is the lab open on saturdays? pretty sure it was a few years ago')).toEqual([]);
    expect(of('last year the fee was $40. what is it in 2027?')).toEqual([['2027-01-01', '2027-12-31']]);
    expect(of('what was the fee last year')).toEqual([['2025-01-01', '2025-12-31']]);
    expect(of('are you open on dec. 26?')).toEqual([['2026-12-26', '2026-12-26']]);
    expect(of('What are the clinic hours?')).toEqual([]);
    expect(of('what were the saturday hours this past summer?')).toContainEqual(['2026-06-01', '2026-08-31']);
    expect(of('will you be open sundays next summer')).toEqual([['2027-06-01', '2027-08-31']]);
    expect(of('was the lab open late last winter')).toEqual([['2025-12-01', '2026-02-28']]);
    // Redaction keeps a date's year: "after January 1, 2027" is stored as "after [DATE] 2027".
    expect(of("what's the no-show fee going to be after [DATE] 2027?")).toEqual([['2027-01-01', '2027-12-31']]);
    expect(of('can I come in at 8 am')).toEqual([]);
    // The window of a rule is a length of time, not a day asked about.
    for (const q of ['what happens after three no-shows in a year?', 'do I pay if I cancel within 24 hours?', 'can I cancel 24 hours before?', 'three missed visits in 12 months']) expect(of(q), q).toEqual([]);
  });

  it('never throws, and every period is a pair of ISO days in order (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), fc.date({ min: new Date('2000-01-01'), max: new Date('2090-12-31'), noInvalidDate: true }), (text, day) => {
        for (const p of askedPeriods(text, day.toISOString().slice(0, 10))) {
          expect(p.from).toMatch(/^\d{4}-\d{2}-\d{2}$/u);
          expect(p.to).toMatch(/^\d{4}-\d{2}-\d{2}$/u);
          expect(p.from <= p.to).toBe(true);
        }
      }),
    );
  });
});

describe('a rule answers for a period only when its revision is in force throughout it', () => {
  const source = 'no-show' as SourceId;
  const current = { revision: 'sha256:current' as RevisionId, effectiveDate: '2026-03-01' as IsoDate };
  const next = { revision: 'sha256:next' as RevisionId, effectiveDate: '2027-02-01' as IsoDate };
  const inForce = (day: IsoDate) => new Map(day >= next.effectiveDate ? [[source, next]] : day >= current.effectiveDate ? [[source, current]] : []);
  const passage = { revision: { sourceId: source, revision: current.revision } } as never;
  const exclusion = (q: string) => periodExclusion(passage, askedPeriods(q, TODAY), TODAY, inForce);

  it('keeps today\'s rule for today and next week, refuses it for last year and for a year a newer revision governs', () => {
    expect(exclusion('what is the no-show fee?')).toBeNull();
    expect(exclusion('my appointment is next week, what is the no-show fee?')).toBeNull();
    expect(exclusion('what was the no-show fee last year?')).toMatch(/^asked about 2025-01-01\.\.2025-12-31 \("last year"\): on 2025-01-01 no revision of it was in force$/u);
    expect(exclusion('what will the no-show fee be in 2027?')).toMatch(/on 2027-12-31 the revision in force is the one effective 2027-02-01/u);
  });
});

describe('periods end to end on the demo corpus', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    ({ runtime } = await demoRuntime());
  });
  afterAll(async () => {
    await runtime.close();
  });

  it('abstains on Eastside\'s hours for a month a future revision governs, recording why each unit was set aside', async () => {
    const trace = await runtime.assistant.ask({ question: 'What will Eastside Clinic\'s opening hours be in March 2027?', role: 'patient', asOf: '2026-12-02' });
    expect(trace.outcome).toBe('abstain');
    expect(trace.reason).toBe('NO_SUPPORT');
    const decision = trace.support_decision;
    const units = decision != null && 'units' in decision ? decision.units : [];
    const eastside = trace.retrieved.filter((r) => r.source_id === 'eastside-clinic-hours').map((r) => r.label);
    expect(eastside.length).toBeGreaterThan(0);
    for (const u of units.filter((x) => eastside.includes(x.label))) expect(u.excluded).toMatch(/^asked about 2027-03-01\.\.2027-03-31/u);
  });
});
