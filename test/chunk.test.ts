import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
});
