import { validateAnswer } from '../cite/index.js';
import { assertNever, type LabeledPassage, type Reason, type Trace, type TraceSentence } from '../domain/index.js';
import type { Draft, GenerateRequest, Generator } from '../generate/index.js';

/** The result of generation: validated sentences, or the reason to abstain; every attempt recorded. */
export type Generated =
  | { readonly ok: true; readonly sentences: TraceSentence[]; readonly citations: Trace['citations']; readonly rejected: Trace['rejected']; readonly generation: Trace['generation'] }
  | { readonly ok: false; readonly reason: Reason; readonly detail: string; readonly rejected: Trace['rejected']; readonly generation: Trace['generation'] };

/** Violations one regeneration may fix; anything else abstains at once. */
const REPAIRABLE: ReadonlySet<Reason> = new Set(['CITATION_GAP', 'CITATION_UNKNOWN', 'UNSUPPORTED_CLAIM']);

/**
 * Generate from the labeled passages and validate; on a repairable violation, one regeneration
 * naming it (when the generator supports repair), then abstain. Provider errors and timeouts
 * become GENERATOR_ERROR, never an uncited answer.
 */
export async function generateValidated(generator: Generator, request: GenerateRequest, offered: readonly LabeledPassage[]): Promise<Generated> {
  const rejected: Trace['rejected'] = [];
  const usages: NonNullable<Trace['generation']>['attempts'] = [];
  const generation = (): Trace['generation'] => ({ passages_offered: offered.length, attempts: [...usages] });
  const fail = (reason: Reason, detail: string): Generated => ({ ok: false, reason, detail, rejected, generation: generation() });

  let previous: { text: string; violation: string } | null = null;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let draft: Draft;
    try {
      draft = previous === null ? await generator.generate(request) : await (generator.repair?.(request, previous.text, previous.violation) ?? Promise.reject(new Error('no repair')));
    } catch (error) {
      return fail('GENERATOR_ERROR', error instanceof Error ? error.message : String(error));
    }
    if (draft.usage !== undefined) usages.push(draft.usage);
    switch (draft.kind) {
      case 'abstain':
        return fail(draft.reason, draft.detail);
      case 'answer': {
        const validation = validateAnswer(draft.text, offered);
        if (validation.ok) {
          return {
            ok: true,
            sentences: validation.sentences.map((s) => ({ text: s.text, labels: [...s.labels], support: s.support })),
            citations: [...validation.citations],
            rejected,
            generation: generation(),
          };
        }
        rejected.push({ text: draft.text, sentences: [...validation.sentences], detail: validation.detail });
        if (!REPAIRABLE.has(validation.reason) || generator.repair === undefined || previous !== null) return fail(validation.reason, validation.detail);
        previous = { text: draft.text, violation: `${validation.reason}: ${validation.detail}` };
        break;
      }
      default:
        return assertNever(draft);
    }
  }
  return fail('GENERATOR_ERROR', 'no attempt left');
}
