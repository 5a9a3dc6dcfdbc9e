import { validateAnswer } from '../cite/index.js';
import { assertNever, type LabeledPassage, type Reason, type Trace, type TraceSentence } from '../domain/index.js';
import type { Draft, GenerateRequest, Generator } from '../generate/index.js';
import { ioContent, llmRequestAttributes, llmUsageAttributes, type TelemetrySpan } from '../telemetry/index.js';

/** The result of generation: validated sentences, or the reason to abstain; every attempt recorded. */
export type Generated =
  | { readonly ok: true; readonly sentences: TraceSentence[]; readonly citations: Trace['citations']; readonly rejected: Trace['rejected']; readonly generation: Trace['generation'] }
  | { readonly ok: false; readonly reason: Reason; readonly detail: string; readonly rejected: Trace['rejected']; readonly generation: Trace['generation'] };

/** How much of a violation's description the repair request repeats. */
const MAX_VIOLATION_CHARS = 300;

/** Violations one regeneration may fix; anything else abstains at once. */
const REPAIRABLE: ReadonlySet<Reason> = new Set(['CITATION_GAP', 'CITATION_UNKNOWN', 'UNSUPPORTED_CLAIM']);

/**
 * Generate from the labeled passages and validate; on a repairable violation, one regeneration
 * naming it (when the generator supports repair), then abstain. Provider errors and timeouts
 * become GENERATOR_ERROR, never an uncited answer. Each attempt is a `generate` span (an LLM span
 * for a model-backed generator) followed by a `validate` span, children of `span`.
 */
export async function generateValidated(generator: Generator, request: GenerateRequest, offered: readonly LabeledPassage[], span: TelemetrySpan): Promise<Generated> {
  const rejected: Trace['rejected'] = [];
  const usages: NonNullable<Trace['generation']>['attempts'] = [];
  const generation = (): Trace['generation'] => ({ passages_offered: offered.length, attempts: [...usages] });
  const fail = (reason: Reason, detail: string): Generated => ({ ok: false, reason, detail, rejected, generation: generation() });

  const draftOf = (last: { text: string; violation: string } | null): Promise<Draft> =>
    span.child('generate', generator.model === undefined ? 'CHAIN' : 'LLM', async (s) => {
      if (generator.model !== undefined) s.set(llmRequestAttributes(generator.model));
      s.setContent(() => ioContent(request.analysis, null));
      const draft = last === null ? await generator.generate(request) : await (generator.repair?.(request, last.text, last.violation) ?? Promise.reject(new Error('no repair')));
      if (draft.usage !== undefined) s.set(llmUsageAttributes(draft.usage));
      if (draft.kind === 'answer') s.setContent(() => ioContent(null, draft.text));
      else if (draft.reason === 'GENERATOR_ERROR') s.fail(draft.detail);
      return draft;
    });

  let previous: { text: string; violation: string } | null = null;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let draft: Draft;
    try {
      draft = await draftOf(previous);
    } catch (error) {
      return fail('GENERATOR_ERROR', error instanceof Error ? error.message : String(error));
    }
    if (draft.usage !== undefined) usages.push(draft.usage);
    switch (draft.kind) {
      case 'abstain':
        return fail(draft.reason, draft.detail);
      case 'answer': {
        const text = draft.text;
        const validation = await span.child('validate', 'GUARDRAIL', (s) => {
          const result = validateAnswer(text, offered);
          s.set({ 'citetrace.valid': result.ok, 'citetrace.reason': result.ok ? null : result.reason });
          return result;
        });
        if (validation.ok) {
          return {
            ok: true,
            sentences: validation.sentences.map((s) => ({ text: s.text, labels: [...s.labels], support: s.support })),
            citations: [...validation.citations],
            rejected,
            generation: generation(),
          };
        }
        rejected.push({ text, sentences: [...validation.sentences], detail: validation.detail });
        if (!REPAIRABLE.has(validation.reason) || generator.repair === undefined || previous !== null) return fail(validation.reason, validation.detail);
        // The violation names the offending sentence; a runaway draft is cut so the repair prompt stays small.
        previous = { text, violation: `${validation.reason}: ${validation.detail}`.slice(0, MAX_VIOLATION_CHARS) };
        break;
      }
      default:
        return assertNever(draft);
    }
  }
  return fail('GENERATOR_ERROR', 'no attempt left');
}
