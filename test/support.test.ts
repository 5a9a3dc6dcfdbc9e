import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideSupport, findConflict, withinOneEdit } from '../src/cite/index.js';
import type { LabeledPassage } from '../src/domain/index.js';
import type { Runtime } from '../src/main.js';
import { daysNamed, questionFocus } from '../src/text/index.js';
import { copyCorpus, demoRuntime } from './helpers.js';

/** Offered passages as the support decision sees them: label, text, headings and title. */
const offered = (...pages: readonly (readonly [title: string, heading: string, text: string])[]): LabeledPassage[] =>
  pages.map(([title, heading, text], i) => ({ label: `S${i + 1}`, passage: { text, headings: [heading] }, revision: { title } }) as unknown as LabeledPassage);

const HOURS = ['Harbor Clinic hours', 'Regular hours', 'Harbor Clinic is open Monday through Friday from 7:30 am to 6 pm.'] as const;
const RESCHEDULE = ['Rescheduling appointments', 'Rescheduling by phone', 'You can reschedule by calling the scheduling line at 555-0142.'] as const;
const LAB = ['Harbor Clinic lab', 'Lab', 'The Harbor Clinic lab is on the first floor of the Harbor Clinic building, next to the pharmacy.'] as const;

describe('the support decision', () => {
  it('requires the asked detail: a sentence that states no time does not say until when', () => {
    const d = decideSupport(questionFocus('until what time can i reschedule by phone?'), offered(RESCHEDULE));
    expect(d.focus.details).toContain('#time');
    expect(d.addressing.size).toBe(0);
    expect(d.scored[0]?.missing).toEqual(['#time']);
    expect(decideSupport(questionFocus('what is the phone number to reschedule?'), offered(RESCHEDULE)).addressing).toEqual(new Set(['S1']));
    // The words that ask for a detail are the detail, not topics a passage must repeat ("can be reached at 555-0130").
    expect(questionFocus("what's the lab's phone number?").terms).toEqual(['@lab', '#phone']);
    expect(questionFocus("what's the street address of harbor clinic?").details).toEqual(new Set(['#address']));
  });

  it('abstains when the thing asked about is named by no offered passage, however many words match', () => {
    const d = decideSupport(questionFocus('is there a pharmacy in the harbor clinic building?'), offered(HOURS));
    expect(d.unnamed).toContain('pharmacy');
    expect(d.addressing.size).toBe(0);
    expect(decideSupport(questionFocus('is there a pharmacy in the harbor clinic building?'), offered(HOURS, LAB)).unnamed).toEqual([]);
  });

  it('reads the asking sentence for the focus and the telling one as circumstance', () => {
    const focus = questionFocus("i've had a cough for a week. can i reschedule by phone?");
    expect(focus.terms).toContain('@reschedule');
    expect(focus.terms).not.toContain('week');
    expect(focus.terms).not.toContain('@illness');
    expect(decideSupport(questionFocus("i've had a cough for a week. can i reschedule by phone?"), offered(RESCHEDULE)).addressing).toEqual(new Set(['S1']));
  });

  it('does not take a rule for other days of the week as the answer for the day asked about', () => {
    const phone = ['Harbor Clinic hours', 'Front desk', 'The Harbor Clinic front desk answers the phone from 7:30 am to 6 pm on weekdays.'] as const;
    const saturday = ['Harbor Clinic hours', 'Front desk', 'On Saturdays the Harbor Clinic front desk answers the phone from 8 am to noon.'] as const;
    const question = 'until what time does the harbor clinic front desk answer the phone on saturdays?';
    const weekdaysOnly = decideSupport(questionFocus(question), offered(phone));
    expect(weekdaysOnly.scored[0]?.missing).toContain('day');
    expect(weekdaysOnly.addressing.size).toBe(0);
    expect(decideSupport(questionFocus(question), offered(phone, saturday)).addressing).toEqual(new Set(['S2']));
    // A question that names no day is not held to one.
    expect(decideSupport(questionFocus('until what time does the harbor clinic front desk answer the phone?'), offered(phone)).addressing).toEqual(new Set(['S1']));
  });

  it('reads a sentence\'s own channel before its heading\'s: the portal sentence under "Phone and portal hours" is about the portal', () => {
    const both = ['Harbor Clinic hours', 'Phone and portal hours', 'The patient portal is available 24 hours a day, seven days a week, for viewing your appointments.'] as const;
    const d = decideSupport(questionFocus('until what time does the front desk answer the phone on saturdays?'), offered(both));
    expect(d.scored[0]?.missing).toContain('channel');
    expect(d.addressing.size).toBe(0);
    // A sentence that names no channel takes its heading's.
    const plain = ['Harbor Clinic hours', 'Phone hours', 'The front desk answers from 8 am to noon on Saturdays.'] as const;
    expect(decideSupport(questionFocus('until what time does the front desk answer the phone on saturdays?'), offered(plain)).addressing).toEqual(new Set(['S1']));
  });

  it('reads the days of the week a text names: single days, ranges, weekdays, weekends, every day', () => {
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
    expect([...daysNamed('Open Monday through Friday, and on Saturdays by appointment.')]).toEqual([...days.slice(0, 6)]);
    expect([...daysNamed('closed on weekends')]).toEqual(['saturday', 'sunday']);
    expect(daysNamed('open daily from 8 am').size).toBe(7);
    expect(daysNamed('Is it open on Thanksgiving?').size).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.constantFrom('through', 'to', '-', '–'), fc.boolean(), (from, to, joiner, upper) => {
        const text = `open ${days[from]} ${joiner} ${days[to]}`;
        const expected = new Set<string>();
        for (let i = from; ; i = (i + 1) % 7) {
          expected.add(days[i] as string);
          if (i === to) break;
        }
        expect(daysNamed(upper ? text.toUpperCase() : text)).toEqual(expected);
      }),
    );
  });

  it('counts the words that only qualify a chatty question at half the weight of what it is about', () => {
    const reset = ['Patient portal help', 'Password resets', 'A password reset link expires one hour after it is sent.'] as const;
    const chatty = decideSupport(questionFocus('i clicked the password reset link they emailed me this morning and now it just says invalid, do those links expire?'), offered(reset));
    expect(chatty.focus.topics).toEqual(expect.arrayContaining(['password', 'reset', 'link']));
    expect(chatty.scored[0]?.coverage).toBeGreaterThanOrEqual(0.3);
    expect(chatty.addressing).toEqual(new Set(['S1']));
    // The same chatter around something the page does not name still abstains.
    expect(decideSupport(questionFocus('i clicked the gift card link they emailed me this morning and now it just says invalid, do those cards expire?'), offered(reset)).addressing.size).toBe(0);
  });

  it('forgives a one-letter typo in a topic, not a different word', () => {
    expect(decideSupport(questionFocus('where is the harbor pharmcy?'), offered(LAB)).unnamed).toEqual([]);
    expect(decideSupport(questionFocus('where is the harbor bakery?'), offered(LAB)).unnamed).toEqual(['bakery']);
  });

  it('withinOneEdit agrees with the edit distance (property)', () => {
    const distance = (a: string, b: string): number => {
      const row = Array.from({ length: b.length + 1 }, (_, j) => j);
      for (let i = 1; i <= a.length; i += 1) {
        let diagonal = row[0] ?? 0;
        row[0] = i;
        for (let j = 1; j <= b.length; j += 1) {
          const above = row[j] ?? 0;
          row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
          diagonal = above;
        }
      }
      return row[b.length] ?? 0;
    };
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 6 });
    fc.assert(fc.property(word, word, (a, b) => withinOneEdit(a, b) === distance(a, b) <= 1));
  });
});

describe('support and retrieval on the demo corpus', () => {
  let runtime: Runtime;
  const ask = (question: string) => runtime.assistant.ask({ question, role: 'patient', asOf: '2026-12-02' });
  beforeAll(async () => {
    ({ runtime } = await demoRuntime());
  });
  afterAll(() => runtime.close());

  it('the hours-page trap cites the scheduling policy or abstains, never the hours page', async () => {
    const trace = await ask('How do I change the time of my Harbor Clinic appointment?');
    expect(trace.retrieved.some((r) => r.source_id === 'harbor-clinic-hours')).toBe(true);
    expect(trace.citations.map((c) => c.source_id)).not.toContain('harbor-clinic-hours');
    if (trace.outcome === 'answer') expect(trace.citations.map((c) => c.source_id)).toContain('rescheduling-appointments');
    else expect(trace.outcome).toBe('abstain');
  });

  it.each([
    'Who may change a booking on someone else\'s behalf, like my husband rescheduling my appointment for me?',
    'Will I get a confirmation number if I reschedule by phone?',
    'Is there a pharmacy in the Eastside Clinic building?',
    'How long is the wait to be seen as a walk-in at Harbor Clinic?',
  ])('a trap that shares words with a page but asks what no page states abstains: %s', async (question) => {
    const trace = await ask(question);
    expect(trace.outcome).toBe('abstain');
    expect(trace.citations).toEqual([]);
  });

  it.each([
    ['Can I swing by Harbor Clinic without booking?', 'harbor-walk-ins'],
    ['Can I push my visit back a week?', 'rescheduling-appointments'],
    ["When is my son's checkup due?", 'well-child-visits'],
  ])('a paraphrase retrieves the right revision: %s', async (question, source) => {
    const trace = await ask(question);
    expect(trace.retrieved.slice(0, 3).map((r) => r.source_id)).toContain(source);
  });
});

describe('conflicting sources in force', () => {
  const page = (label: string, sourceId: string, clinic: string | null, text: string): LabeledPassage =>
    ({
      label,
      passage: { text, headings: ['Lab hours'], sourceId },
      revision: { title: 'Lab hours', entities: clinic === null ? {} : { clinic } },
    }) as unknown as LabeledPassage;
  const decide = (question: string, passages: readonly LabeledPassage[]) => findConflict(decideSupport(questionFocus(question), passages), passages);

  it('finds two sources for the same clinic stating the asked detail differently, and nothing else', () => {
    const a = page('S1', 'harbor-lab-hours', 'harbor', 'The Harbor Clinic lab draws blood Monday through Friday from 7 am to 4 pm.');
    const b = page('S2', 'harbor-lab-notice', 'harbor', 'The Harbor Clinic lab draws blood Monday through Friday from 8 am to 2 pm.');
    const same = page('S2', 'harbor-lab-notice', 'harbor', 'The Harbor Clinic lab draws blood Monday through Friday from 7 am to 4 pm.');
    const otherClinic = page('S2', 'eastside-lab-hours', 'eastside', 'The Eastside Clinic lab draws blood Monday through Friday from 8 am to 2 pm.');
    const q = 'until what time does the lab draw blood?';
    expect(decide(q, [a, b])?.labels).toEqual(['S1', 'S2']);
    expect(decide(q, [a, same])).toBeNull();
    expect(decide(q, [a, otherClinic])).toBeNull();
    expect(decide('where is the lab?', [a, b])).toBeNull();
  });

  it('abstains with CONFLICTING_REVISIONS end to end when a new page contradicts the one in force', async () => {
    const corpus = await copyCorpus();
    await writeFile(
      path.join(corpus, 'lab', 'harbor-lab-notice.md'),
      '---\nsource_id: harbor-lab-notice\ntitle: Harbor Clinic lab notice\nstatus: approved\neffective_date: 2026-11-01\nversion: 2026-11-01\nowner: harbor-lab-operations\naudience: [patient, staff]\nclinic: harbor\n---\n## Lab hours\nThe Harbor Clinic lab draws blood Monday through Friday from 8 am to 2 pm.\n',
    );
    const { runtime } = await demoRuntime({ corpus });
    try {
      const trace = await runtime.assistant.ask({ question: 'Until what time does the Harbor Clinic lab draw blood?', role: 'patient', asOf: '2026-12-02' });
      expect(trace.outcome).toBe('abstain');
      expect(trace.reason).toBe('CONFLICTING_REVISIONS');
      expect(trace.detail).toMatch(/harbor-lab-hours.*harbor-lab-notice|harbor-lab-notice.*harbor-lab-hours/u);
      expect(trace.citations).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
