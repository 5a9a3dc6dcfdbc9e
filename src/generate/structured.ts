import { z } from 'zod';
import { splitSentences } from '../text/index.js';
import { MODEL_ABSTAIN_REASONS, type Draft, type GenerationUsage } from './generator.js';


/** Sentences an answer may have at most: the prompt's "at most three short sentences", enforced. */
export const MAX_SENTENCES = 3;

/** OpenAI's strict JSON Schema, or the subset node-llama-cpp compiles into a grammar (`oneOf`, bare `enum`, bounded strings). */
export type SchemaDialect = 'openai' | 'gbnf';

/** Characters a sentence may have at most under a grammar: a runaway sentence ends instead of filling max_tokens. */
const MAX_SENTENCE_CHARS = 250;

/**
 * The JSON Schema of a reply that can only be well-formed: either an answer (one to three
 * sentences, each with a non-empty list of labels drawn from exactly those offered) or an
 * abstention with a reason. The same reply is sent as an OpenAI `response_format` (strict mode:
 * every property required, no extras, `anyOf` below the root) and compiled into a llama.cpp
 * grammar.
 */
export function replySchema(labels: readonly string[], dialect: SchemaDialect = 'openai'): Record<string, unknown> {
  const oneOf = (values: readonly string[]): Record<string, unknown> => (dialect === 'gbnf' ? { enum: [...values] } : { type: 'string', enum: [...values] });
  const object = (properties: Record<string, unknown>): Record<string, unknown> => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });
  const answer = object({
    kind: oneOf(['answer']),
    sentences: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_SENTENCES,
      items: object({
        text: dialect === 'gbnf' ? { type: 'string', minLength: 1, maxLength: MAX_SENTENCE_CHARS } : { type: 'string' },
        labels: { type: 'array', minItems: 1, maxItems: labels.length, items: oneOf(labels) },
      }),
    },
  });
  const abstain = object({ kind: oneOf(['abstain']), reason: oneOf(MODEL_ABSTAIN_REASONS) });
  return object({ reply: dialect === 'gbnf' ? { oneOf: [answer, abstain] } : { anyOf: [answer, abstain] } });
}

const ReplySchema = z.object({
  reply: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('answer'),
      sentences: z.array(z.object({ text: z.string(), labels: z.array(z.string()).min(1) })).min(1),
    }),
    z.object({ kind: z.literal('abstain'), reason: z.enum(MODEL_ABSTAIN_REASONS) }),
  ]),
});

/** A label written inside a sentence's text: the labels list is the only place they count. */
const INLINE_LABELS = /\s*\[\s*S\d+(?:\s*[,\]]\s*\[?\s*S\d+)*\s*\]/gu;

/**
 * A structured reply as a draft for the validator: each sentence closed by its labels (an item
 * holding several sentences gives each of them its labels). Labels outside the offered set are
 * kept, so that the validator names them (CITATION_UNKNOWN); a reply that is not the schema's
 * JSON is a generator error, never an answer.
 */
export function draftFromReply(raw: string, usage: GenerationUsage): Draft {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { kind: 'abstain', reason: 'GENERATOR_ERROR', detail: `the model's reply is not JSON: ${raw.slice(0, 120)}`, usage };
  }
  const parsed = ReplySchema.safeParse(json);
  if (!parsed.success) {
    return { kind: 'abstain', reason: 'GENERATOR_ERROR', detail: `the model's reply does not follow the schema: ${parsed.error.issues[0]?.message ?? ''}`, usage };
  }
  const reply = parsed.data.reply;
  if (reply.kind === 'abstain') return { kind: 'abstain', reason: reply.reason, detail: `the model abstained: ${reply.reason}`, usage };
  const text = reply.sentences
    .flatMap((s) => {
      const group = [...new Set(s.labels)].map((l) => `[${l}]`).join('');
      // A stray full stop is not a sentence: it would close the one before it and leave its labels citing nothing.
      return splitSentences(s.text.replace(INLINE_LABELS, ''))
        .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence))
        .map((sentence) => `${sentence} ${group}`);
    })
    .join(' ');
  if (text.trim() === '') return { kind: 'abstain', reason: 'GENERATOR_ERROR', detail: 'the model answered with empty sentences', usage };
  return { kind: 'answer', text, raw, usage };
}
