import type { SupportDecision } from '../cite/index.js';
import type { LabeledPassage } from '../domain/index.js';

export interface GenerateRequest {
  /** The question as asked (in memory only; never persisted unredacted). */
  readonly question: string;
  /** The normalized, redacted question without placeholders, as retrieval and the support decision read it. */
  readonly analysis: string;
  /** The only material a generator may use, labeled S1..Sk. */
  readonly passages: readonly LabeledPassage[];
  /** The pipeline's support decision over these passages: which sentences address the question. */
  readonly support: SupportDecision;
  readonly signal?: AbortSignal;
}

/** What a model-backed generator spent on a draft; recorded in the trace. */
export interface GenerationUsage {
  readonly model: string;
  readonly prompt_tokens: number | null;
  readonly completion_tokens: number | null;
  readonly latency_ms: number;
}

/** A generator's draft: answer text whose sentences end with labels, or a declared abstention. */
export type Draft =
  | { readonly kind: 'answer'; readonly text: string; readonly usage?: GenerationUsage }
  | { readonly kind: 'abstain'; readonly reason: 'NO_SUPPORT' | 'GENERATOR_ERROR'; readonly detail: string; readonly usage?: GenerationUsage };

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
