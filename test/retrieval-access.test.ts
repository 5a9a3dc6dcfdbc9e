import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Trace } from '../src/domain/index.js';
import type { Runtime } from '../src/main.js';
import { demoRuntime } from './helpers.js';

/** Questions aimed squarely at the staff-only, superseded, draft and future revisions. */
const PROBES = [
  'What is the scheduling desk override code for double-booking?',
  'What is the internal escalation line for the scheduling desk?',
  'Until what time can I get blood drawn at the Harbor lab?',
  'How much is the no-show fee?',
  'How far ahead can I reschedule in the portal?',
  'Is Eastside Clinic open on Saturday?',
  'Is the downtown urgent walk-in center open?',
  'Which app do I use for a video visit?',
  'How early should I arrive for my appointment?',
];

describe('retrieval applies role and date before ranking', () => {
  let runtime: Runtime;
  let patientTraces: Trace[];

  beforeAll(async () => {
    ({ runtime } = await demoRuntime());
    patientTraces = [];
    for (const question of PROBES) patientTraces.push(await runtime.assistant.ask({ question, role: 'patient' }));
  });
  afterAll(async () => runtime.close());

  const revisionsOf = (trace: Trace): string[] => [...trace.retrieved.map((r) => r.revision), ...trace.citations.map((c) => c.revision)];

  it('never shows a patient a staff-only passage, even when asked for it', () => {
    for (const trace of patientTraces) {
      expect(trace.retrieved.map((r) => r.source_id)).not.toContain('scheduling-desk-overrides');
      expect(trace.answer).not.toMatch(/RS-OVR|555-0199/u);
    }
  });

  it('retrieves and cites only the revisions in force for the role on the date', () => {
    const inForce = new Set([...runtime.index.inForce({ role: 'patient', asOf: '2026-12-02' }).values()].map((r) => r.revision));
    const all = patientTraces.flatMap(revisionsOf);
    expect(all.length).toBeGreaterThan(20);
    for (const revision of all) expect(inForce.has(revision as never)).toBe(true);
    const statusOf = (revision: string) => runtime.index.revisions.get(revision as never);
    for (const revision of all) {
      const meta = statusOf(revision);
      expect(meta?.status).toBe('approved');
      expect((meta?.effectiveDate ?? '9999') <= '2026-12-02').toBe(true);
    }
  });

  it('never retrieves the superseded, draft, future or retired revisions the corpus holds', () => {
    const versions = new Set(patientTraces.flatMap((t) => t.retrieved.map((r) => `${r.source_id}@${r.version ?? ''}`)));
    for (const excluded of [
      'harbor-lab-hours@2025-02-10',
      'cancellation-no-show@2025-07-01',
      'cancellation-no-show@2026-10-01-draft',
      'rescheduling-appointments@2025-09-01',
      'video-visits@2024-03-01',
      'eastside-clinic-hours@2027-01-15',
      'downtown-urgent-walk-in@2025-03-31',
    ]) {
      expect(versions).not.toContain(excluded);
    }
  });

  it('cites the in-force revision: Harbor lab closes at 4 pm, not the superseded 3 pm', () => {
    const trace = patientTraces[2];
    expect(trace?.outcome).toBe('answer');
    expect(trace?.citations.map((c) => `${c.source_id}@${c.version ?? ''}`)).toContain('harbor-lab-hours@2026-05-04');
    expect(trace?.answer).toMatch(/4 pm/u);
  });

  it('lets staff retrieve the staff-only source', async () => {
    const trace = await runtime.assistant.ask({ question: PROBES[0] ?? '', role: 'staff' });
    expect(trace.retrieved.map((r) => r.source_id)).toContain('scheduling-desk-overrides');
  });

  it('answers from the future revision only once it is in force', async () => {
    const later = await runtime.assistant.ask({ question: 'Is Eastside Clinic open on Saturday?', role: 'patient', asOf: '2027-02-01' });
    expect(later.retrieved.map((r) => `${r.source_id}@${r.version ?? ''}`)).toContain('eastside-clinic-hours@2027-01-15');
    expect(later.retrieved.map((r) => `${r.source_id}@${r.version ?? ''}`)).not.toContain('eastside-clinic-hours@2026-01-05');
  });

  it('records every candidate with its raw scores, separate from what the answer cites', () => {
    const trace = patientTraces[2];
    expect(trace?.retrieved.length).toBe(10);
    // Offered: at most k (5) candidates, each holding a unit the judge found answering; every citation is one of them.
    const offered = new Set(trace?.retrieved.filter((r) => r.offered).map((r) => r.label));
    expect(offered.size).toBeGreaterThan(0);
    expect(offered.size).toBeLessThanOrEqual(5);
    const decision = trace?.support_decision;
    if (decision === null || decision === undefined || !('judge' in decision)) throw new Error('no judged support decision');
    const answering = new Set(decision.units.filter((u) => (u.score ?? 0) >= decision.judge.threshold).map((u) => u.label));
    for (const label of offered) expect(answering.has(label)).toBe(true);
    for (const r of trace?.retrieved ?? []) {
      expect(r.text.length).toBeGreaterThan(0);
      expect(r.components).toHaveProperty('vector');
      expect(r.components).toHaveProperty('fts');
    }
    const labels = new Set(trace?.retrieved.map((r) => r.label));
    for (const c of trace?.citations ?? []) {
      expect(labels.has(c.label)).toBe(true);
      expect(offered.has(c.label)).toBe(true);
      expect(c.text).toBe(trace?.retrieved.find((r) => r.label === c.label)?.text);
    }
  });
});
