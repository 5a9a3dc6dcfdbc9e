import { judgeText, stripLabels, validateAnswer, type Validation } from '../cite/index.js';
import { assertNever, type LabeledPassage, type Reason, type Trace, type TraceSentence } from '../domain/index.js';
import type { Draft, GenerateRequest, Generator } from '../generate/index.js';
import type { SupportJudge } from '../judge/index.js';
import { ioContent, llmRequestAttributes, llmUsageAttributes, type TelemetrySpan } from '../telemetry/index.js';
import { bindsValuesAs, valueRuns } from '../text/index.js';

type Generation = NonNullable<Trace['generation']>;

/** The result of generation: validated sentences, or the reason to abstain; every attempt recorded. */
export type Generated =
  | { readonly ok: true; readonly sentences: TraceSentence[]; readonly citations: Trace['citations']; readonly rejected: Trace['rejected']; readonly generation: Generation }
  | { readonly ok: false; readonly reason: Reason; readonly detail: string; readonly rejected: Trace['rejected']; readonly generation: Generation };

export interface GenerationGuards {
  /**
   * The support judge: a model-written answer passes only when the judge, reading the question
   * with each of its sentences, finds one that answers (quoted units were judged as units).
   */
  readonly judge: SupportJudge;
  /** Answers when a model-backed generator's drafts all fail (not when the model itself abstains): recorded as a fallback. */
  readonly fallback?: Generator;
}

/** How much of a violation's description the repair request repeats. */
const MAX_VIOLATION_CHARS = 300;

/** Violations one regeneration may fix; anything else abstains at once. */
const REPAIRABLE: ReadonlySet<Reason> = new Set(['CITATION_GAP', 'CITATION_UNKNOWN', 'UNSUPPORTED_CLAIM']);

type Attempts =
  | { readonly ok: true; readonly sentences: TraceSentence[]; readonly citations: Trace['citations'] }
  | { readonly ok: false; readonly reason: Reason; readonly detail: string; readonly byModel: boolean };

/**
 * Generate from the labeled passages of the request (the only ones a draft may cite) and validate; on a repairable violation, one regeneration
 * naming it (when the generator supports repair), then abstain, or answer with the fallback
 * generator when one is given and passes the same validation. Provider errors and timeouts
 * become GENERATOR_ERROR, never an uncited answer. Each attempt is a `generate` span (an LLM span
 * for a model-backed generator) followed by a `validate` span, children of `span`.
 */
export async function generateValidated(generator: Generator, request: GenerateRequest, span: TelemetrySpan, guards: GenerationGuards): Promise<Generated> {
  const rejected: Trace['rejected'] = [];
  const attempts: Generation['attempts'] = [];
  const first = await attemptWith(generator, request, span, guards.judge, rejected, attempts);
  const generation: Generation = { passages_offered: request.passages.length, attempts };
  if (first.ok) return { ...first, rejected, generation };
  // The model's own abstention stands: the fallback answers only for drafts that failed.
  if (guards.fallback === undefined || generator.model === undefined || first.byModel) return { ...first, rejected, generation };
  const fallback = { generator: guards.fallback.id, after: first.reason, detail: first.detail };
  const second = await attemptWith(guards.fallback, request, span, guards.judge, rejected, attempts);
  return { ...second, rejected, generation: { ...generation, fallback } };
}

async function attemptWith(
  generator: Generator,
  request: GenerateRequest,
  span: TelemetrySpan,
  judge: SupportJudge,
  rejected: Trace['rejected'],
  usages: Generation['attempts'],
): Promise<Attempts> {
  const fail = (reason: Reason, detail: string, byModel = false): Attempts => ({ ok: false, reason, detail, byModel });
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
        return fail(draft.reason, draft.detail, draft.reason !== 'GENERATOR_ERROR');
      case 'answer': {
        const text = draft.text;
        const validation = await span.child('validate', 'GUARDRAIL', async (s) => {
          const result = await judged(validateAnswer(text, request.passages), generator.model === undefined ? null : judge, request.analysis, request.passages);
          s.set({ 'citetrace.valid': result.ok, 'citetrace.reason': result.ok ? null : result.reason });
          return result;
        });
        if (validation.ok) {
          return { ok: true, sentences: [...validation.sentences], citations: [...validation.citations] };
        }
        rejected.push({ text, sentences: [...validation.sentences], detail: validation.detail });
        if (!REPAIRABLE.has(validation.reason) || generator.repair === undefined || previous !== null) return fail(validation.reason, validation.detail);
        // The violation names the offending sentence; a runaway draft is cut so the repair prompt stays small.
        previous = { text: draft.raw ?? text, violation: `${validation.reason}: ${validation.detail}`.slice(0, MAX_VIOLATION_CHARS) };
        break;
      }
      default:
        return assertNever(draft);
    }
  }
  return fail('GENERATOR_ERROR', 'no attempt left');
}

/**
 * The gate of a model-written answer that passed the label and support checks: values bound
 * together stand so in a cited passage, and the judge's reading: each
 * sentence, without its labels, read as the judge reads a unit (under the page title and headings
 * of the passage it cites first) and scored with the question; at least one must answer. (Every
 * content word of each sentence is already stated by its cited passages, and only passages with
 * an answering unit were offered to the model.)
 */
async function judged(validation: Validation, judge: SupportJudge | null, question: string, offered: readonly LabeledPassage[]): Promise<Validation> {
  if (!validation.ok || judge === null) return validation;
  const byLabel = new Map(offered.map((p) => [p.label, p]));
  // Values bound together ("Monday through Friday, 8 am to 11:30 am") must stand so in a cited passage: every word
  // of a wrong pairing can be in it ("Monday through Friday, 8 am to 5 pm, and Saturday, 8 am to 11:30 am").
  const unbound = validation.sentences.find((s) => !s.labels.some((l) => bindsValuesAs(stripLabels(s.text), byLabel.get(l)?.passage.text ?? '')));
  if (unbound !== undefined) {
    return {
      ok: false,
      reason: 'UNSUPPORTED_CLAIM',
      detail: `values stated together that no cited passage states together (${valueRuns(stripLabels(unbound.text)).join('; ')}) in: ${unbound.text}`,
      sentences: validation.sentences.map((s) => ({ text: s.text, labels: [...s.labels] })),
    };
  }
  const texts = validation.sentences.map((s) => {
    const cited = byLabel.get(s.labels[0] ?? '');
    const sentence = { kind: 'sentence' as const, text: stripLabels(s.text) };
    return cited === undefined ? sentence.text : judgeText(cited.revision.title, cited.passage.headings, sentence);
  });
  const scores = await judge.score(question, texts);
  const sentences = validation.sentences.map((s, i) => ({ ...s, judged: scores[i] ?? 0 }));
  const best = Math.max(0, ...scores);
  if (best >= judge.threshold) return { ...validation, sentences };
  return {
    ok: false,
    reason: 'UNSUPPORTED_CLAIM',
    detail: `no sentence answers the question (best judge score ${best.toFixed(2)} < ${judge.threshold})`,
    sentences: sentences.map((s) => ({ text: s.text, labels: [...s.labels], judged: s.judged })),
  };
}
