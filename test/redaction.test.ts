import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { redact, type IdentifierType } from '../src/trace/index.js';
import { startTestService } from './helpers.js';

interface Planted {
  question: string;
  identifiers: { type: IdentifierType; value: string }[];
}
const FIXTURE = new URL('./fixtures/planted-identifiers.yaml', import.meta.url);
const planted = parse(readFileSync(FIXTURE, 'utf8')) as Planted[];

/** Recall per type: an identifier counts as caught when no part of its value survives redaction. */
function recallOf(rows: readonly Planted[]): { total: number; caught: number; byType: Record<string, { total: number; caught: number }>; falsePositives: number } {
  const byType: Record<string, { total: number; caught: number }> = {};
  let total = 0;
  let caught = 0;
  let falsePositives = 0;
  for (const row of rows) {
    const out = redact(row.question).text;
    if (row.identifiers.length === 0 && out !== row.question) falsePositives += 1;
    for (const id of row.identifiers) {
      const entry = (byType[id.type] ??= { total: 0, caught: 0 });
      entry.total += 1;
      total += 1;
      const digits = id.value.replace(/\D/gu, '');
      const survived = out.includes(id.value) || (digits.length >= 4 && out.replace(/\D/gu, '').includes(digits)) || id.value.split(/\s+/u).some((w) => w.length > 2 && /^\p{Lu}/u.test(w) && out.includes(w));
      if (!survived) {
        entry.caught += 1;
        caught += 1;
      }
    }
  }
  return { total, caught, byType, falsePositives };
}

describe('redaction before persistence', () => {
  it('replaces identifiers with typed placeholders and leaves appointment facts alone', () => {
    expect(redact("Hi, I'm Maria Gonzalez, DOB 03/14/1985, MRN 00482913. Can I reschedule?").text).toBe("Hi, I'm [NAME], DOB [DOB], MRN [MRN]. Can I reschedule?");
    expect(redact('email jo.smith+x@gmail.com or call (503) 555-0199; ssn 123-45-6789').text).toBe('email [EMAIL] or call [PHONE]; ssn [SSN]');
    expect(redact('I live at 42 Maple Street Apt 4, member id XHP449201733').text).toBe('I live at [ADDRESS], member id [MEMBER_ID]');
    // A date keeps its year (no one is identified by a year, and the question's period is read from it); a birth date does not.
    expect(redact('Will the fee change after January 1, 2027? DOB 03/14/1985.').text).toBe('Will the fee change after [DATE] 2027? DOB [DOB].');
    for (const box of ['PO Box 1187', 'P.O. Box 42', 'p o box 9', 'Post Office Box 310-B']) expect(redact(`mail my records to ${box} please`).text, box).toBe('mail my records to [ADDRESS] please');
    for (const q of ['Until what time can I get blood drawn at the Harbor lab?', 'How much is the $40 no-show fee?', 'Is Eastside Clinic open 8 am to 5 pm?']) expect(redact(q).text).toBe(q);
  });

  it('never takes the deployment\'s own names or a month for a person, and still removes the person beside them', () => {
    const keep = ['Copperline Health', 'Fennwick Pavilion', 'Fennwick', 'Ashby Square'];
    expect(redact('Will Fennwick Pavilion be open on MLK day in January?', keep).text).toBe('Will Fennwick Pavilion be open on MLK day in January?');
    expect(redact("Hi, I'm Maria Gonzalez, can my son Jacob Miller be seen at Ashby Square in mid-March?", keep).text).toBe("Hi, I'm [NAME], can my son [NAME] be seen at Ashby Square in mid-March?");
  });

  it('keeps any site name the deployment declares, wherever it stands, and removes a named person (property)', () => {
    const capitalized = fc.stringMatching(/^[A-Z][a-z]{3,9}$/u);
    fc.assert(
      fc.property(capitalized, fc.constantFrom('Clinic', 'Pavilion', 'Square', 'Center'), fc.constantFrom('Will', 'Can', 'Is'), (name, kind, lead) => {
        const site = `${name} ${kind}`;
        const out = redact(`${lead} ${site} open Saturday? My daughter Emma Rossi has a visit there.`, [site, name]).text;
        expect(out).toContain(site);
        expect(out).not.toContain('Emma');
      }),
    );
  });

  it('catches at least 97% of 210 planted identifiers, each type at least 90%, and leaves trap questions alone', () => {
    const r = recallOf(planted);
    expect(r.total).toBeGreaterThanOrEqual(200);
    expect(r.caught / r.total).toBeGreaterThanOrEqual(0.97);
    for (const [type, v] of Object.entries(r.byType)) expect(v.caught / v.total, type).toBeGreaterThanOrEqual(0.9);
    expect(r.falsePositives).toBe(0);
  });

  it('never writes planted identifiers to the database files, the WAL or /metrics, yet answers from the original', async () => {
    const t = await startTestService({ listen: false });
    const { service, dataDir } = t;
    const [patient, operator] = [t.keyFor('patient'), t.keyFor('operator')];
    const secrets = ['Maria Gonzalez', '03/14/1985', '00482913', 'maria.g@example.org', '503-555-0182', '123-45-6789', '1428 Elm Street', 'XHP449201733'];
    try {
      const asks = [
        "Hi, I'm Maria Gonzalez, DOB 03/14/1985, MRN 00482913. Until what time can I get blood drawn at the Harbor lab?",
        'my email is maria.g@example.org and my phone 503-555-0182, what are the harbor clinic lab hours?',
        'ssn 123-45-6789, I live at 1428 Elm Street, member id XHP449201733. Is parking free at Eastside Clinic?',
      ];
      for (const question of asks) {
        const res = await service.app.inject({ method: 'POST', url: '/v1/ask', headers: { authorization: `Bearer ${patient}` }, payload: { question } });
        expect(res.statusCode).toBe(200);
        expect(res.json<{ outcome: string }>().outcome).toBe('answer');
      }
      const metrics = await service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${operator}` } });
      for (const s of secrets) expect(metrics.body).not.toContain(s);
      const stored = await service.context.runtime().store.list({ limit: 10 });
      expect(stored.map((s) => s.trace.query)).toContain('Hi, I\'m [NAME], DOB [DOB], MRN [MRN]. Until what time can I get blood drawn at the Harbor lab?');
    } finally {
      await t.close();
    }
    for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const bytes = await readFile(path.join(entry.parentPath, entry.name));
      for (const s of secrets) expect(bytes.includes(Buffer.from(s)), `${entry.name} holds ${s}`).toBe(false);
    }
  });
});
