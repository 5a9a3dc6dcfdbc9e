import { z } from 'zod';
import { ChunkIdSchema, IsoDateSchema, RevisionIdSchema, RoleSchema, SourceIdSchema, TraceIdSchema } from './ids.js';

export const OutcomeSchema = z.enum(['answer', 'abstain', 'clarify', 'out_of_scope']);
export type Outcome = z.infer<typeof OutcomeSchema>;

/** Contract section 2: never rename these; add new ones at the end. */
export const ReasonSchema = z.enum([
  'CITATION_GAP',
  'CITATION_UNKNOWN',
  'UNSUPPORTED_CLAIM',
  'NO_SUPPORT',
  'CONFLICTING_REVISIONS',
  'UNDERSPECIFIED',
  'CLINICAL',
  'EMERGENCY',
  'GENERATOR_ERROR',
  /** A mental-health crisis: routed to 988 (and 911 when in immediate danger) before anything is retrieved. */
  'CRISIS',
  /** The message is in a language the assistant cannot read: routed to emergency numbers and the appointment channel's interpreters. */
  'UNSUPPORTED_LANGUAGE',
  /** The message asks nothing (greetings, thanks or acknowledgements only): the patient is asked what they would like to know (outcome `clarify`). */
  'NO_REQUEST',
]);
export type Reason = z.infer<typeof ReasonSchema>;

/** The reasons of a message routed away, in report order (`UNSUPPORTED_LANGUAGE`: told 911, 988 and the interpreter line). */
export const ROUTING_REASONS = ['EMERGENCY', 'CRISIS', 'CLINICAL', 'UNSUPPORTED_LANGUAGE'] as const satisfies readonly Reason[];

export const LabelSchema = z.string().regex(/^S[1-9]\d*$/);

export const RetrievedSchema = z.object({
  label: LabelSchema,
  source_id: SourceIdSchema,
  revision: RevisionIdSchema,
  version: z.string().nullable(),
  chunk_id: ChunkIdSchema,
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  text: z.string(),
  /** Fused relevance score: evidence of relevance, never proof. */
  score: z.number(),
  rank: z.number().int().positive(),
  /** Per-retriever raw scores and ranks behind the fused score (null: not found by that retriever). */
  components: z.record(z.string(), z.object({ score: z.number(), rank: z.number().int().positive() }).nullable()),
  /** Whether the passage was among the k offered to the generator (the context budget). */
  offered: z.boolean(),
  /** Lexical support decision of traces stored before the judge: the best share of the question's focus one of its sentences states. */
  coverage: z.number().optional(),
  /** Support judge: the best P(answers) among the passage's judged units (absent when none of its units was judged). */
  judged: z.number().optional(),
});
export type Retrieved = z.infer<typeof RetrievedSchema>;

/**
 * What the support judge read and said: every unit it scored (a sentence, a list item with its
 * lead-in, a table row with its headers, an FAQ entry), with its span in the revision body, so an
 * auditor can re-derive the decision with the model of that hash.
 */
export const JudgedSupportSchema = z.object({
  judge: z.object({
    model: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/u),
    threshold: z.number(),
    /** The score a unit of a passage ranked below the k best-retrieved needed for its passage to be offered (absent in traces stored before it). */
    threshold_beyond_k: z.number().optional(),
  }),
  /**
   * The injection detector that kept text addressed to a machine reader out of the units (absent in traces stored before it was
   * recorded), and the lower score at which a unit was kept out of answers (absent before session 21).
   */
  injection: z.object({ model: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/u), threshold: z.number(), answer_threshold: z.number().optional() }).optional(),
  /** Units considered (judged or not): the judge reads at most this many per question. */
  units_total: z.number().int().nonnegative(),
  /** The question with its places said neutrally ("the clinic"), when units about no place were read with it too (since session 40). */
  neutral_question: z.string().optional(),
  units: z.array(
    z.object({
      label: LabelSchema,
      kind: z.enum(['sentence', 'item', 'row', 'faq']),
      start: z.number().int().nonnegative(),
      end: z.number().int().nonnegative(),
      text: z.string(),
      /** P(answers), the higher of its readings; null for a unit a hard check excluded before judging. */
      score: z.number().nullable(),
      /** P(answers) read with `neutral_question`, for a unit read with it (since session 40). */
      neutral_score: z.number().optional(),
      /** Why no score could make it an answer (it is about another site than the one asked). */
      excluded: z.string().optional(),
    }),
  ),
});

/** The lexical support decision of traces stored before the judge (read, never written). */
export const LexicalSupportSchema = z.object({ focus: z.array(z.string()), unnamed: z.array(z.string()), min_coverage: z.number() });

export const SentenceSchema = z.object({
  text: z.string(),
  labels: z.array(LabelSchema),
  /** Share of the sentence's content words its cited passages state (the support check's score). */
  support: z.number().optional(),
  /** A model-written sentence read by the support judge with the question: P(answers); absent for quoted units, which the judge read as units. */
  judged: z.number().optional(),
});
export type TraceSentence = z.infer<typeof SentenceSchema>;

export const CitationSchema = z.object({
  label: LabelSchema,
  source_id: SourceIdSchema,
  revision: RevisionIdSchema,
  version: z.string().nullable(),
  chunk_id: ChunkIdSchema,
  text: z.string(),
  /** The cited revision's review_by date, when its front matter has one (absent before session 28). */
  review_by: IsoDateSchema.optional(),
  /** Whether that date was before as_of: the revision is stale (reported, still usable); present with review_by. */
  stale: z.boolean().optional(),
});
export type Citation = z.infer<typeof CitationSchema>;

export const TraceConfigSchema = z.object({
  retriever: z.string(),
  embedder: z.string(),
  generator: z.string(),
  prompt_version: z.string(),
  index_snapshot: z.string(),
  /** Passages offered to the generator (the context budget). */
  k: z.number().int().positive(),
  /** Candidates retrieved and recorded, of which the first k are offered. */
  candidates: z.number().int().positive(),
});
export type TraceConfig = z.infer<typeof TraceConfigSchema>;

/** A generated answer the validator rejected: kept for the operator, never shown to the user. */
export const RejectedDraftSchema = z.object({ text: z.string(), sentences: z.array(SentenceSchema), detail: z.string() });

/** The two urgent routings: what the safety floor routes to, and what the second scope classifier may add. */
export const UrgentClassSchema = z.enum(['emergency', 'crisis']);
/** A scope classifier's class probabilities for one text. */
const ScopeScoresSchema = z.object({ admin: z.number(), clinical: z.number(), emergency: z.number(), crisis: z.number() });

/** Scope routing as recorded: the safety floor's phrase or the classifier's scores, its model, hash and thresholds. */
export const ScopeDecisionSchema = z.object({
  /**
   * `language`: the message (or a clause of it) is in a language the assistant cannot read; `no_request`: it asks
   * nothing, only greets, thanks or acknowledges (since session 30).
   */
  route: z.enum(['in_scope', 'emergency', 'crisis', 'clinical', 'language', 'no_request']),
  /**
   * `floor`: a safety-floor phrase matched; `model`: the classifier's score crossed its threshold;
   * `second_model`: the second classifier's urgent score crossed its own threshold (it can only add an
   * emergency or crisis routing; since session 26); `language`: the language identifier read another
   * language; `phatic`: every word belongs to a greeting, thanks or acknowledgement (`src/scope/phatic.ts`,
   * since session 30); `none`: in scope.
   */
  decided_by: z.enum(['floor', 'model', 'second_model', 'language', 'phatic', 'none']),
  floor_phrase: z.string().nullable(),
  model: z.string(),
  /** sha256 of the classifier's manifest, which pins its files and thresholds. */
  sha256: z.string(),
  thresholds: z.object({ urgent: z.number(), clinical: z.number() }),
  /** Class probabilities of the whole message. */
  scores: ScopeScoresSchema,
  /** The highest P(emergency) + P(crisis) over the whole message and each of its sentences. */
  urgent: z.number(),
  /** How many texts were classified: the message, plus its sentences and windows when it is long. */
  segments: z.number().int().positive(),
  /** The second classifier's reading of the same texts: its identity, urgent threshold, the kinds it may add, whole-message scores and highest urgent score (absent before session 26). */
  second: z
    .object({
      model: z.string(),
      sha256: z.string(),
      threshold: z.number(),
      /** The kinds of routing it may add (emergency, crisis or both). */
      adds: z.array(UrgentClassSchema),
      scores: ScopeScoresSchema,
      urgent: z.number(),
    })
    .optional(),
  /** The language identifier's reading, its identity and limits (absent in traces stored before it). */
  language: z
    .object({
      model: z.string(),
      sha256: z.string(),
      min_letters: z.object({ whole: z.number().int(), clause: z.number().int() }),
      /** How far a clause's language had to out-score English. */
      clause_margin: z.number(),
      /** ISO 639-1 code that decided, null when the message was too short to read. */
      code: z.string().nullable(),
      english: z.boolean(),
      /** Whether the identifier was sure of `code` (only then is the patient addressed in that language). */
      reliable: z.boolean(),
      /** The clause read as another language inside a message read as English as a whole. */
      clause: z.string().nullable(),
    })
    .optional(),
});
export type ScopeDecision = z.infer<typeof ScopeDecisionSchema>;

export const TraceSchema = z.looseObject({
  trace_id: TraceIdSchema,
  created_at: z.iso.datetime(),
  query: z.string(),
  normalized_query: z.string(),
  role: RoleSchema,
  as_of: IsoDateSchema,
  outcome: OutcomeSchema,
  reason: ReasonSchema.nullable(),
  answer: z.string(),
  retrieved: z.array(RetrievedSchema),
  sentences: z.array(SentenceSchema),
  citations: z.array(CitationSchema),
  config: TraceConfigSchema,
  /** Why the pipeline decided as it did (scope rule, support score, clarification), for operators. */
  detail: z.string().nullable(),
  /** The support decision: the judge's model, hash and threshold and its score per unit, or (traces stored before the judge) the lexical reading. */
  support_decision: z.union([JudgedSupportSchema, LexicalSupportSchema]).nullable().optional(),
  /**
   * What the question was understood to ask, as retrieval and the support decision read it: the
   * periods it names (resolved against as_of; a unit whose revision is not in force throughout one
   * is set aside), the entity values it names, the entity types it asks about every value of ("any
   * of your clinics": a row with a column per value answers it without asking which one; absent
   * before it was recorded), and whether it names a person (redacted). Null when the question was routed away first; absent in traces stored before
   * it was recorded.
   */
  question_analysis: z
    .object({
      periods: z.array(z.object({ text: z.string(), from: IsoDateSchema, to: IsoDateSchema })),
      /** Weekdays the question asks about as habits ("open on sundays?", "saturday hours"), when it names any (since session 35). */
      habitual_days: z.array(z.string()).optional(),
      entities: z.record(z.string(), z.array(z.string())),
      every: z.array(z.string()).optional(),
      names_person: z.boolean(),
      /** The person the question acts through ("my wife" doing something for the patient, or the patient as someone's "proxy"), else null (since session 30). */
      acts_for: z.string().nullable().optional(),
      /**
       * The age of the person the question is about, by its words: an adult, the speaker's own grown son or daughter, a
       * minor, or null when the words do not say (since session 33).
       */
      acted_for_age: z.enum(['adult', 'grown_child', 'minor']).nullable().optional(),
      /** Whether the question asks when a place is open, naming no phone line, portal or what one calls for (since session 34). */
      asks_place_hours: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  /** Scope routing: the safety floor's phrase or the classifier's scores, its model, hash and thresholds (absent in traces stored before it was recorded). */
  scope_decision: ScopeDecisionSchema
    .optional(),
  /** Drafts the validator rejected, in order (a repaired answer keeps its first attempt here). */
  rejected: z.array(RejectedDraftSchema),
  /** What generation cost: passages offered and, for model-backed generators, each attempt's model, tokens and latency. */
  generation: z
    .object({
      passages_offered: z.number().int().nonnegative(),
      attempts: z.array(
        z.object({
          model: z.string(),
          /** How the reply's form was enforced: `json_schema` (the server applied it), `grammar` (llama.cpp), `text` (parsed afterwards); absent before it was recorded. */
          mode: z.enum(['json_schema', 'grammar', 'text']).optional(),
          prompt_tokens: z.number().int().nullable(),
          completion_tokens: z.number().int().nullable(),
          latency_ms: z.number(),
        }),
      ),
      /** The model's drafts failed (the reason and detail of the last), and the answer is the fallback generator's, itself validated. */
      fallback: z.object({ generator: z.string(), after: ReasonSchema, detail: z.string() }).optional(),
    })
    .nullable(),
  /** The OpenTelemetry trace id of this ask (32 lowercase hex), null when telemetry was off; absent in traces stored before it was recorded. */
  otel_trace_id: z.string().regex(/^[0-9a-f]{32}$/).nullable().optional(),
});
export type Trace = z.infer<typeof TraceSchema>;

/** The trace contract as JSON Schema, for outside tools (contract section 3). */
export function traceJsonSchema(): unknown {
  return z.toJSONSchema(TraceSchema, { io: 'output', unrepresentable: 'any' });
}
