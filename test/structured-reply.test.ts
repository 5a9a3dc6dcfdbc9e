import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLabeledSentences } from '../src/cite/index.js';
import { draftFromReply, replySchema } from '../src/generate/index.js';
import { bindsValuesAs, valueRuns } from '../src/text/index.js';

const usage = { model: 'm', mode: 'grammar' as const, prompt_tokens: 1, completion_tokens: 1, latency_ms: 1 };
const label = fc.integer({ min: 1, max: 12 }).map((n) => `S${n}`);
const words = fc.array(fc.constantFrom('The', 'lab', 'opens', 'at', '7', 'am', 'fee', 'is', '$40', 'Harbor', 'no', 'appointment', '[S3]', '[S1][S2]', '.', 'Call', '555-0100'), { minLength: 1, maxLength: 14 });
const sentence = fc.record({ text: words.map((w) => w.join(' ')), labels: fc.uniqueArray(label, { minLength: 1, maxLength: 3 }) });

describe('structured replies', () => {
  it('every sentence of a well-formed answer carries exactly the labels listed for it, whatever its text holds', () => {
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 3 }), (sentences) => {
        const draft = draftFromReply(JSON.stringify({ reply: { kind: 'answer', sentences } }), usage);
        if (draft.kind !== 'answer') return draft.reason === 'GENERATOR_ERROR';
        const allowed = new Set(sentences.flatMap((s) => s.labels));
        const parsed = parseLabeledSentences(draft.text);
        return parsed.length > 0 && parsed.every((s) => s.labels.length > 0 && s.labels.every((l) => allowed.has(l)));
      }),
    );
  });

  it('anything that is not the schema is a generator error, never an answer', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.constant('{"reply":{"kind":"answer","sentences":[]}}'), fc.constant('{"reply":{"kind":"abstain","reason":"MAYBE"}}')), (raw) => {
        const draft = draftFromReply(raw, usage);
        return draft.kind === 'abstain' && draft.reason === 'GENERATOR_ERROR';
      }),
    );
  });

  it("keeps the model's abstention and its reason", () => {
    expect(draftFromReply('{"reply":{"kind":"abstain","reason":"CONFLICTING_REVISIONS"}}', usage)).toMatchObject({ kind: 'abstain', reason: 'CONFLICTING_REVISIONS' });
  });

  it('offers only the given labels, in both dialects', () => {
    for (const dialect of ['openai', 'gbnf'] as const) {
      const schema = JSON.stringify(replySchema(['S2', 'S5'], dialect));
      expect(schema).toContain('["S2","S5"]');
      expect(schema).not.toMatch(/"S[134]"/u);
      expect(schema).toContain(dialect === 'gbnf' ? '"oneOf"' : '"anyOf"');
    }
  });

  it('values bound together must stand together in the source; a quote always does (property)', () => {
    const source = 'Walk-in flu shots Monday through Friday, 8 am to 5 pm, and Saturday, 8 am to 11:30 am. Call 555-0142.';
    expect(valueRuns('Monday through Friday, 8 am to 11:30 am.')).toEqual(['monday - friday, 8 am - 11:30 am']);
    expect(bindsValuesAs('You can come Monday through Friday, 8 am to 11:30 am.', source)).toBe(false);
    expect(bindsValuesAs('Weekdays it is Monday to Friday, 8 am–5 pm.', source)).toBe(true);
    expect(bindsValuesAs('Call 555-0142 between 8 am and 5 pm.', source)).toBe(true);
    const piece = fc.constantFrom('Monday', 'through', 'Friday,', '8 am', 'to', '5 pm', 'and', 'Saturday', '$40', '555-0142', 'the', 'clinic', 'opens', '24 hours', '–');
    fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 16 }), (words) => bindsValuesAs(words.join(' '), `Intro. ${words.join(' ')} More.`)));
  });
});
