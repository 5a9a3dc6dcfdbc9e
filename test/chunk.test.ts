import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passageUnits } from '../src/cite/index.js';
import { chunkRevision, revisionIdOf } from '../src/ingest/index.js';

const revision = revisionIdOf('fixture');
const block = fc.oneof(
  fc.constantFrom('## Walk-ins', '### Saturday hours', '# Lab'),
  fc
    .array(fc.constantFrom('The lab opens at 7 am.', 'Parking is free for two hours.', 'Call 555-0142 to book.', 'Bring your insurance card.', 'Walk-ins are welcome until noon.'), {
      minLength: 1,
      maxLength: 12,
    })
    .map((s) => s.join(' ')),
  fc.array(fc.constantFrom('photo ID', 'insurance card', 'medication list'), { minLength: 1, maxLength: 4 }).map((items) => items.map((i) => `- ${i}`).join('\n')),
  fc
    .array(fc.constantFrom('| Jan. 19 | Martin Luther King Jr. Day | Closed |', '| Nov. 26 | Thanksgiving Day | Closed |', '| Dec. 24 | Christmas Eve | 8 am – 1 pm |'), { minLength: 1, maxLength: 14 })
    .map((rows) => ['| Date | Holiday | Hours |', '|---|---|---|', ...rows].join('\n')),
);

describe('chunking', () => {
  it('yields ordered, non-overlapping passages that are exact spans of the body (property)', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 20 }), fc.constantFrom('\n\n', '\n\n\n'), (blocks, sep) => {
        const body = `${blocks.join(sep)}\n`;
        const passages = chunkRevision({ revision, sourceId: 'fixture' as never, body }, { minChars: 80, maxChars: 300 });
        let last = 0;
        for (const p of passages) {
          expect(p.text).toBe(body.slice(p.start, p.end));
          expect(p.start).toBeGreaterThanOrEqual(last);
          expect(p.end).toBeGreaterThan(p.start);
          expect(p.chunkId).toBe(`${revision}#${p.start}-${p.end}`);
          last = p.end;
        }
        const nonHeading = blocks.filter((b) => !b.startsWith('#'));
        if (nonHeading.length > 0) expect(passages.length).toBeGreaterThan(0);
        // A table is never cut: every table of the body lies whole inside one passage.
        for (const table of blocks.filter((b) => b.startsWith('| Date'))) expect(passages.some((p) => p.text.includes(table))).toBe(true);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('starts a section passage at its heading and carries the heading path', () => {
    const body = '# Lab\n\n## Walk-ins\n\nThe Harbor Clinic lab accepts walk-ins from 7 am to 11 am on weekdays, for blood draws only.\n\n## Parking\n\nParking is free.\n';
    const passages = chunkRevision({ revision, sourceId: 'fixture' as never, body });
    expect(passages.map((p) => p.text)).toEqual([
      '## Walk-ins\n\nThe Harbor Clinic lab accepts walk-ins from 7 am to 11 am on weekdays, for blood draws only.',
      '## Parking\n\nParking is free.',
    ]);
    expect(passages[0]?.headings).toEqual(['Lab', 'Walk-ins']);
  });

  it('keeps a table longer than a passage whole, so each row is a unit with its header cells', () => {
    const rows = ['| Thursday, January 1, 2026 | New Year\'s Day | Closed |', '| Monday, January 19, 2026 | Martin Luther King Jr. Day | Regular hours |', '| Thursday, November 26, 2026 | Thanksgiving Day | Closed |'];
    const body = `# Holiday hours\n\n| Date | Holiday | Harbor Clinic |\n|---|---|---|\n${[...rows, ...rows, ...rows].join('\n')}\n`;
    const passages = chunkRevision({ revision, sourceId: 'fixture' as never, body }, { minChars: 80, maxChars: 300 });
    expect(passages).toHaveLength(1);
    expect(passages[0]?.text.length).toBeGreaterThan(300);
    expect(passageUnits(passages[0]!).map((u) => u.text)).toContain('Date: Thursday, November 26, 2026; Holiday: Thanksgiving Day; Harbor Clinic: Closed');
  });
});
