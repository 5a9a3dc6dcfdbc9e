import type { SupportDecision } from '../cite/index.js';
import type { LabeledPassage } from '../domain/index.js';

/** One unit of an offered passage to quote: its label, its span in the revision body, and the words of its page that lead it. */
export interface UnitRef {
  readonly label: string;
  readonly start: number;
  readonly end: number;
  /** The page title or heading that says whose rule the unit is (it names the site); none when the unit says it itself. */
  readonly lead?: string;
}

export interface GenerateRequest {
  /** The question as asked (in memory only; never persisted unredacted). */
  readonly question: string;
  /** The normalized, redacted question without placeholders, as retrieval and the support decision read it. */
  readonly analysis: string;
  /** The only material a generator may use, labeled S1..Sk. */
  readonly passages: readonly LabeledPassage[];
  /** The pipeline's support decision over these passages: which sentences address the question. */
  readonly support: SupportDecision;
  /**
   * Units the answer must quote, in this order (a question about every site: the system-wide rule, then one
   * unit per site), each led by its lead. The extractive generator quotes exactly these; a model generator is
   * offered their passages.
   */
  readonly quote?: readonly UnitRef[];
  readonly signal?: AbortSignal;
}

/** What a model-backed generator spent on a draft; recorded in the trace. */
export interface GenerationUsage {
  readonly model: string;
  /** How the reply's form was enforced: a JSON schema the server applied, a llama.cpp grammar, or free text parsed afterwards. */
  readonly mode?: GenerationMode;
  readonly prompt_tokens: number | null;
  readonly completion_tokens: number | null;
  readonly latency_ms: number;
}

export type GenerationMode = 'json_schema' | 'grammar' | 'text';

/** What writes the answers: the extractive generator, an OpenAI-compatible server, or a GGUF model in-process. */
export const GENERATOR_KINDS = ['extractive', 'openai', 'llama.cpp'] as const;

/** Reasons a model may give for not answering: the contract's, limited to what the passages can show it. */
export const MODEL_ABSTAIN_REASONS = ['NO_SUPPORT', 'CONFLICTING_REVISIONS'] as const;

/** A generator's draft: answer text whose sentences end with labels, or a declared abstention. */
export type Draft =
  | {
      readonly kind: 'answer';
      readonly text: string;
      /** The model's reply as it came (a JSON object), when the text was derived from it: what a repair shows the model. */
      readonly raw?: string;
      readonly usage?: GenerationUsage;
    }
  | { readonly kind: 'abstain'; readonly reason: (typeof MODEL_ABSTAIN_REASONS)[number] | 'GENERATOR_ERROR'; readonly detail: string; readonly usage?: GenerationUsage };

/** What a model-backed generator calls: the API family (OpenTelemetry gen_ai.system) and the requested model. */
export interface ModelIdentity {
  readonly system: string;
  readonly name: string;
}

export interface Generator {
  readonly id: string;
  readonly promptVersion: string;
  /** Set by model-backed generators (their spans are LLM spans); absent for the extractive one. */
  readonly model?: ModelIdentity;
  generate(request: GenerateRequest): Promise<Draft>;
  /** One more attempt after a rejected draft, told what was wrong (bounded repair); optional. */
  repair?(request: GenerateRequest, previous: string, violation: string): Promise<Draft>;
}
