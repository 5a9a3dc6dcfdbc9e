import type { LabeledPassage } from '../domain/index.js';

export interface GenerateRequest {
  /** The question as asked (in memory only; never persisted unredacted). */
  readonly question: string;
  /** The normalized, redacted question without placeholders, as retrieval and the support decision read it. */
  readonly analysis: string;
  /** The only material a generator may use, labeled S1..Sk. */
  readonly passages: readonly LabeledPassage[];
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

export interface Generator {
  readonly id: string;
  readonly promptVersion: string;
  generate(request: GenerateRequest): Promise<Draft>;
  /** One more attempt after a rejected draft, told what was wrong (bounded repair); optional. */
  repair?(request: GenerateRequest, previous: string, violation: string): Promise<Draft>;
}
