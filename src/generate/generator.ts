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

/** A generator's draft: answer text whose sentences end with labels, or a declared abstention. */
export type Draft =
  | { readonly kind: 'answer'; readonly text: string }
  | { readonly kind: 'abstain'; readonly reason: 'NO_SUPPORT' | 'GENERATOR_ERROR'; readonly detail: string };

export interface Generator {
  readonly id: string;
  readonly promptVersion: string;
  generate(request: GenerateRequest): Promise<Draft>;
}
