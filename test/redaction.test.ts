import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createRedactor, mayNameAPerson, redact, type IdentifierType } from '../src/trace/index.js';
import { startTestService, type TestService } from './helpers.js';

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

/**
 * Issue 20: the tagger (compromise, most of redaction's time) is read only where one of its passes can find something
 * (`mayNameAPerson`). The gate must lose nothing the tagger finds: the same redaction as reading every question with it.
 */
describe('the tagger is read only where it can find a name', () => {
  const gated = createRedactor(['Harbor Clinic', 'Eastside Clinic']);
  const always = createRedactor(['Harbor Clinic', 'Eastside Clinic'], { tagger: 'always' });
  // Names the tagger's lexicon knows and names it does not, surnames that are ordinary words, titles.
  const FIRST = ['jacob', 'emma', 'marguerite', 'wei', 'luc', 'priya', 'oluwaseun', 'zoltan', 'anneliese', 'li', 'grace', 'bill'];
  const LAST = ['miller', 'nguyen', 'vantongeren', 'kovacs', 'zhang', 'raman', 'hall', 'white', 'brightwater'];
  const FRAMES = [
    '{ask} for {name}', '{name} needs to {verb}', 'can {name} {verb}', '{ask} {name} said to call', 'booking for mr {last}, {ask}',
    'dr {last} told me to {verb}', '{ask}? thanks, {name}', 'my wife {name} wants to {verb}', 'is {name} on the schedule friday', '{Name} asked {ask}',
  ];
  const ASK = ['what time does harbor clinic open', 'how much is the no-show fee', 'is parking free at Eastside Clinic', 'can i reschedule in the portal'];
  const VERB = ['reschedule', 'book a flu shot', 'pick up records', 'cancel tuesday'];
  const cased = (word: string, how: number): string => (how === 0 ? word : how === 1 ? `${word[0]?.toUpperCase() ?? ''}${word.slice(1)}` : word.toUpperCase());

  it('gives the same redaction as reading every question with the tagger (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FRAMES), fc.constantFrom(...FIRST), fc.constantFrom(...LAST), fc.integer({ min: 0, max: 2 }), fc.boolean(), fc.constantFrom(...ASK), fc.constantFrom(...VERB), (frame, first, last, casing, withLast, ask, verb) => {
        const name = withLast ? `${cased(first, casing)} ${cased(last, casing)}` : cased(first, casing);
        const question = frame.replace('{Name}', cased(first, 1)).replace('{name}', name).replace('{last}', cased(last, casing)).replace('{ask}', ask).replace('{verb}', verb);
        expect(gated(question)).toEqual(always(question));
      }),
      { seed: 20, numRuns: 400 },
    );
  });

  it('gives the same redaction on every planted-identifier question', () => {
    for (const row of planted) expect(gated(row.question), row.question).toEqual(always(row.question));
  });

  it('skips the tagger for ordinary questions, and reads it where a name, a title, a word after a cue, a birth cue or a capital may begin one', () => {
    for (const q of ['what time does the lab open on saturday?', 'Can I get blood drawn without an appointment?', 'is the copay for a video visit the same as going in person?', 'How much is the no-show fee? And is parking free?', 'I need to reschedule, can I do it in the portal?', "i'm new here", 'my son needs a visit', 'can i sign up in the patient portal?']) {
      expect(mayNameAPerson(q), q).toBe(false);
    }
    for (const q of ['appointment for emma tomorrow', 'can oluwaseun adeyemi book a visit', 'is dr okafor in on friday', "i'm priya raman", 'my son jaxon needs a visit', 'this is dr. okafor', 'dob is march third 1961', 'What time does Okafor Family Practice open?', 'Zoltan kovacs needs a visit', 'cho mình hỏi lúc nào mở cửa']) {
      expect(mayNameAPerson(q), q).toBe(true);
    }
  });
});

/**
 * Issue 17: planted identifiers, names in any case among them, never reach the database files (WAL included), what the
 * process prints, /metrics or the operator API, whatever question they are planted in (property, fixed seed, through the
 * real service). The names are ones the tagger's lexicon knows and none the demo policies use; surnames that are also
 * ordinary words ("Hall", "White") are a known miss.
 */
describe('planted identifiers never leave the process unredacted (property)', () => {
  // The audit's shapes (issue 17, finding 3) among them: names the tagger's lexicon does not know, a name as the subject of a question.
  const FIRST = ['jacob', 'emma', 'olivia', 'liam', 'noah', 'sarah', 'maria', 'michael', 'jennifer', 'david', 'linda', 'ethan', 'sophia', 'daniel', 'karen', 'anneliese', 'priya', 'oluwaseun'];
  const LAST = ['miller', 'garcia', 'johnson', 'smith', 'brown', 'nguyen', 'wilson', 'martinez', 'anderson', 'taylor', 'moore', 'jackson', 'lopez', 'clark', 'lewis', 'walker', 'vandermeer', 'raman', 'okonkwo'];
  const INTRO = ["hi, i'm {name}", 'this is {name}', 'its {name} here', 'my son {name}', 'my daughter {name}', 'booking for my wife {name}', 'can {name} book a visit for me'];
  const MONTHS = ['january', 'march', 'june', 'october'];
  const ORDINALS = ['first', 'third', 'twelfth', 'twenty first'];
  const HOLLOWS = ['Hollow', 'Hill', 'Row', 'Crossing', 'Bend'];
  const ASK = ['until what time can I get blood drawn at the Harbor lab?', 'how much is the no-show fee?', 'is parking free at Eastside Clinic?', 'can I reschedule in the portal?'];
  const STREETS = ['Maple', 'Oak', 'Cedar', 'Birch', 'Willow'];
  const KINDS = ['Street', 'Avenue', 'Road', 'Lane', 'Drive'];
  const cased = (word: string, how: number): string => (how === 0 ? word : how === 1 ? `${word[0]?.toUpperCase() ?? ''}${word.slice(1)}` : word.toUpperCase());
  const planted = fc.record({
    first: fc.constantFrom(...FIRST),
    last: fc.constantFrom(...LAST),
    casing: fc.integer({ min: 0, max: 2 }),
    intro: fc.constantFrom(...INTRO),
    ask: fc.constantFrom(...ASK),
    dob: fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1935, max: 2015 })).map(([m, d, y]) => `${String(m).padStart(2, '0')}/${String(d).padStart(2, '0')}/${y}`),
    mrn: fc.integer({ min: 10_000_000, max: 99_999_999 }).map(String),
    member: fc.integer({ min: 100_000_000, max: 999_999_999 }).map((n) => `XHP${n}`),
    street: fc.tuple(fc.integer({ min: 100, max: 9999 }), fc.constantFrom(...STREETS), fc.constantFrom(...KINDS)).map(([n, s, k]) => `${n} ${s} ${k}`),
    box: fc.integer({ min: 10, max: 99_999 }).map((n) => `PO Box ${n}`),
    dobWords: fc.tuple(fc.constantFrom(...MONTHS), fc.constantFrom(...ORDINALS), fc.integer({ min: 1935, max: 2015 })).map(([m, d, y]) => `${m} ${d} ${y}`),
    card: fc.tuple(fc.constantFrom('BCX', 'QHP', 'AET'), fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1000, max: 9999 })).map(([p, a, b]) => `${p} ${a} ${b}`),
    record: fc.integer({ min: 100_000, max: 999_999 }).map(String),
    pmb: fc.tuple(fc.integer({ min: 10, max: 999 }), fc.constantFrom(...STREETS), fc.constantFrom(...HOLLOWS)).map(([n, s, k]) => `${n} ${s} ${k}`),
    extras: fc.subarray(['dob', 'mrn', 'member', 'street', 'box', 'dobWords', 'card', 'record', 'pmb'] as const, { minLength: 1 }),
  });

  let t: TestService;
  const secrets: { readonly text: string; readonly pattern: RegExp }[] = [];
  const printed: string[] = [];
  const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  beforeAll(async () => {
    t = await startTestService({ listen: false });
    // What the process prints while it answers, kept to search (and still printed).
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (printed.push(String(chunk)), writes.out(chunk, ...rest)));
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (printed.push(String(chunk)), writes.err(chunk, ...rest)));
  });
  afterAll(async () => {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    await t.close();
  });

  const leaks = (text: string): string[] => secrets.filter((s) => s.pattern.test(text)).map((s) => s.text);

  it('asked through the service, then searched for everywhere they could be written', async () => {
    const patient = t.keyFor('patient');
    const operator = t.keyFor('operator');
    await fc.assert(
      fc.asyncProperty(planted, async (p) => {
        const name = `${cased(p.first, p.casing)} ${cased(p.last, p.casing)}`;
        const details = {
          dob: `DOB ${p.dob}`,
          mrn: `MRN ${p.mrn}`,
          member: `member id ${p.member}`,
          street: `I live at ${p.street}`,
          box: `mail it to ${p.box}`,
          dobWords: `my birthday is ${p.dobWords}`,
          card: `my insurance card says ${p.card}`,
          record: `record number ${p.record}`,
          pmb: `send it to PMB 220, ${p.pmb}`,
        };
        const question = `${p.intro.replace('{name}', name)}, ${p.extras.map((e) => details[e]).join(', ')}. ${p.ask}`;
        for (const word of [p.first, p.last]) secrets.push({ text: word, pattern: new RegExp(String.raw`\b${word}\b`, 'iu') });
        const values = { dob: p.dob, mrn: p.mrn, member: p.member, street: p.street, box: p.box.replace('PO ', ''), dobWords: p.dobWords, card: p.card.slice(4), record: p.record, pmb: p.pmb };
        // Not inside a longer run of digits or hex digits: a score or a timing such as 0.9999997615814209 holds "99999976", and
        // the keys database's random sha-256 key hashes (hex) hold a six-digit run now and then, without holding an MRN.
        for (const e of p.extras) secrets.push({ text: values[e], pattern: new RegExp(String.raw`(?<![\da-f])${values[e].replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&')}(?![\da-f])`, 'iu') });
        const res = await t.service.app.inject({ method: 'POST', url: '/v1/ask', headers: { authorization: `Bearer ${patient}` }, payload: { question } });
        expect(res.statusCode, question).toBe(200);
        expect(leaks(res.body), question).toEqual([]);
      }),
      { seed: 17, numRuns: 30 },
    );
    const api = async (url: string): Promise<string> => (await t.service.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${operator}` } })).body;
    const listed = await api('/v1/traces?limit=100');
    const ids = (JSON.parse(listed) as { traces: { trace_id: string }[] }).traces.map((x) => x.trace_id);
    expect(ids.length).toBeGreaterThanOrEqual(30);
    const outputs = [listed, await api('/metrics'), ...(await Promise.all(ids.map((id) => api(`/v1/traces/${id}`)))), printed.join('')];
    for (const output of outputs) expect(leaks(output)).toEqual([]);
    // The database, its WAL and every other file the service wrote, while it is still open (the WAL not yet folded in).
    for (const entry of await readdir(t.dataDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const bytes = (await readFile(path.join(entry.parentPath, entry.name))).toString('latin1');
      expect(leaks(bytes), entry.name).toEqual([]);
    }
  });
});
