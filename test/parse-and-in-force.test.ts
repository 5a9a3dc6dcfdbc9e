import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RevisionIdSchema, selectInForce, SourceIdSchema, type RevisionMeta } from '../src/domain/index.js';
import { canonicalContent, parsePolicyFile, revisionIdOf } from '../src/ingest/index.js';

const assistant = {
  organization: 'Maple Valley Health',
  appointment_channel: 'call 555-0142',
  entities: { clinic: { harbor: ['Harbor Clinic'], eastside: ['Eastside Clinic'] } },
};
const file = (fm: string, body = 'The Harbor Clinic lab draws blood on weekdays.\n'): string => `---\n${fm}\n---\n${body}`;
const parse = (text: string | Uint8Array) =>
  parsePolicyFile({ file: 'x.md', bytes: typeof text === 'string' ? Buffer.from(text) : text, assistant });

describe('policy file parsing', () => {
  const base = 'source_id: harbor-lab-hours\ntitle: Harbor lab\nstatus: approved\neffective_date: 2026-05-04\nversion: 2026-05-04\nclinic: harbor';

  it('reads front matter, entity tags and the body offsets start after', () => {
    const result = parse(file(base));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.revision).toMatchObject({
      sourceId: 'harbor-lab-hours',
      version: '2026-05-04',
      audience: ['patient', 'staff'],
      entities: { clinic: 'harbor' },
      body: 'The Harbor Clinic lab draws blood on weekdays.\n',
    });
  });

  it('gives identical content the same revision id whatever the line endings or BOM (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Walk-ins welcome.', 'Parking is free.', 'Call 555-0142.'), { minLength: 1, maxLength: 6 }), (lines) => {
        const unix = file(base, `${lines.join('\n')}\n`);
        const windows = `\uFEFF${unix.replace(/\n/gu, '\r\n')}`;
        const a = parse(unix);
        const b = parse(windows);
        expect(a.ok && b.ok && a.revision.revision === b.revision.revision).toBe(true);
        expect(a.ok && a.revision.revision).toBe(revisionIdOf(canonicalContent(unix)));
      }),
      { seed: 3, numRuns: 100 },
    );
  });

  it('gives any change of content a new revision id', () => {
    const a = parse(file(base));
    const b = parse(file(base, 'The Harbor Clinic lab draws blood on weekdays!\n'));
    expect(a.ok && b.ok && a.revision.revision !== b.revision.revision).toBe(true);
  });

  it('refuses an empty body and duplicate keys', () => {
    expect(parse(file(base, '\n')).ok).toBe(false);
    const dup = parse(file(`${base}\ntitle: again`));
    expect(dup.ok ? '' : dup.problem.message).toMatch(/malformed front matter/u);
  });
});

describe('in-force selection', () => {
  const rev = (id: string, over: Partial<RevisionMeta>): RevisionMeta => ({
    revision: RevisionIdSchema.parse(`sha256:${id.repeat(64).slice(0, 64)}`),
    sourceId: SourceIdSchema.parse('lab'),
    title: 'Lab',
    status: 'approved',
    effectiveDate: '2026-01-01',
    version: id,
    reviewBy: null,
    owner: null,
    audience: ['patient', 'staff'],
    entities: {},
    path: `${id}.md`,
    ingestSeq: 1,
    ...over,
  });
  const old = rev('a', { effectiveDate: '2025-01-01' });
  const current = rev('b', { effectiveDate: '2026-01-01' });
  const future = rev('c', { effectiveDate: '2027-01-15' });
  const draft = rev('d', { effectiveDate: '2026-06-01', status: 'draft' });
  const staffOnly = rev('e', { effectiveDate: '2026-03-01', audience: ['staff'] });
  const all = [old, current, future, draft, staffOnly];
  const present = new Set(all.map((r) => r.revision));
  const pick = (role: 'patient' | 'staff', asOf: string, p = present) => selectInForce(all, { role, asOf, present: p }).get(current.sourceId)?.version;

  it('picks the approved revision with the latest effective date on or before as_of that the role may see', () => {
    expect(pick('patient', '2026-12-02')).toBe('b');
    expect(pick('staff', '2026-12-02')).toBe('e');
    expect(pick('patient', '2025-06-01')).toBe('a');
    expect(pick('patient', '2027-01-15')).toBe('c');
    expect(pick('patient', '2024-01-01')).toBeUndefined();
  });

  it('ignores revisions no longer present in the repository, so a removed file withdraws its source', () => {
    expect(pick('patient', '2026-12-02', new Set([old.revision]))).toBe('a');
    expect(pick('patient', '2026-12-02', new Set())).toBeUndefined();
  });

  it('breaks a tie on effective date by the later ingest', () => {
    const edited = rev('f', { effectiveDate: '2026-01-01', ingestSeq: 2 });
    expect(selectInForce([current, edited], { role: 'patient', asOf: '2026-12-02', present: new Set([current.revision, edited.revision]) }).get(current.sourceId)?.version).toBe('f');
  });
});
