import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLabels, parseLabeledSentences } from '../src/cite/index.js';

const WORDS = ['the', 'lab', 'opens', 'at', 'seven', 'walk-ins', 'are', 'welcome', 'parking', 'is', 'free', 'on', 'weekdays'];
const sentenceBody = fc
  .array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 8 })
  .map((w) => `${w.join(' ').replace(/^./u, (c) => c.toUpperCase())}.`);
const label = fc.integer({ min: 1, max: 9 }).map((n) => `S${n}`);
const sentence = fc.record({ body: sentenceBody, labels: fc.array(label, { maxLength: 3 }), style: fc.constantFrom('adjacent', 'comma') });

function render(s: { body: string; labels: string[]; style: string }): string {
  if (s.labels.length === 0) return s.body;
  return s.style === 'comma' ? `${s.body} [${s.labels.join(', ')}]` : `${s.body} ${s.labels.map((l) => `[${l}]`).join('')}`;
}

describe('citation label validation', () => {
  it('accepts an answer exactly when every sentence has a label and every label is known (property)', () => {
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 6 }), fc.subarray(['S1', 'S2', 'S3', 'S4', 'S5']), (sentences, knownList) => {
        const known = new Set(knownList);
        const answer = sentences.map(render).join(' ');
        const expected = sentences.every((s) => s.labels.length > 0) && sentences.every((s) => s.labels.every((l) => known.has(l)));
        const result = checkLabels(answer, known);
        expect(result.ok).toBe(expected);
        expect(result.sentences).toHaveLength(sentences.length);
        if (!result.ok) {
          const unknown = sentences.some((s) => s.labels.some((l) => !known.has(l)));
          expect(result.reason).toBe(unknown ? 'CITATION_UNKNOWN' : 'CITATION_GAP');
        }
      }),
      { seed: 20261202, numRuns: 500 },
    );
  });

  it('parses each sentence with the labels that close it', () => {
    expect(parseLabeledSentences('The lab opens at 7 am. [S1] Parking is free [S2][S3]. Walk-ins welcome.')).toEqual([
      { text: 'The lab opens at 7 am. [S1]', labels: ['S1'] },
      { text: 'Parking is free [S2][S3].', labels: ['S2', 'S3'] },
      { text: 'Walk-ins welcome.', labels: [] },
    ]);
  });

  it('gives labels only to the last sentence before them', () => {
    const result = checkLabels('The lab opens at 7 am. Parking is free. [S1]', new Set(['S1']));
    expect(result.ok).toBe(false);
    expect(result.ok ? null : result.reason).toBe('CITATION_GAP');
  });

  it('treats an empty answer or a bare label as a gap', () => {
    expect(checkLabels('', new Set(['S1'])).ok).toBe(false);
    const bare = checkLabels('[S1]', new Set(['S1']));
    expect(bare.ok ? null : bare.reason).toBe('CITATION_GAP');
  });
});
