/**
 * Evaluation metrics, pure. Retrieval and answer behaviour are scored separately, so a better
 * end-to-end number cannot hide a worse retriever. Citation precision and recall follow ALCE
 * (Gao et al., "Enabling Large Language Models to Generate Text with Citations", EMNLP 2023):
 * a sentence is recalled when its citations jointly support it; a citation is precise when its
 * passage supports the sentence alone, or the sentence loses support without it.
 */
import { ROUTING_REASONS, type Outcome, type Trace } from '../domain/index.js';
import type { EvalCase } from './cases.js';

export interface Judgement {
  readonly id: string;
  readonly expect: Outcome;
  readonly actual: Outcome;
  readonly reason: Trace['reason'];
  readonly passed: boolean;
  /** 1-based rank of the first retrieved passage of a supporting revision; null when none was retrieved. */
  readonly supportRank: number | null;
  readonly failures: readonly string[];
  readonly tags: readonly string[];
}

/** Support of a sentence by a set of retrieved labels, as the project's support checker scores it (0..1). */
export type SupportFn = (trace: Trace, sentence: string, labels: readonly string[]) => number;

export function refMatches(ref: string, sourceId: string, version: string | null): boolean {
  const at = ref.indexOf('@');
  return at < 0 ? ref === sourceId : ref.slice(0, at) === sourceId && ref.slice(at + 1) === (version ?? '');
}

const contains = (text: string, needle: string): boolean => text.toLowerCase().includes(needle.toLowerCase());

export function judgeCase(c: EvalCase, trace: Trace): Judgement {
  const failures: string[] = [];
  if (trace.outcome !== c.expect) failures.push(`outcome ${trace.outcome}${trace.reason ? `/${trace.reason}` : ''}, expected ${c.expect}`);
  const cited = trace.citations;
  if (c.expect === 'answer' && trace.outcome === 'answer' && c.support.length > 0) {
    if (!cited.some((x) => c.support.some((ref) => refMatches(ref, x.source_id, x.version)))) failures.push(`no citation of ${c.support.join(' | ')}`);
  }
  for (const x of cited) {
    if (c.forbid.some((ref) => refMatches(ref, x.source_id, x.version))) failures.push(`cited forbidden ${x.source_id}@${x.version ?? ''}`);
  }
  if (trace.outcome === 'answer') {
    for (const alternatives of c.facts) if (!alternatives.some((f) => contains(trace.answer, f))) failures.push(`missing fact ${alternatives.join(' | ')}`);
  }
  for (const phrase of c.must_not_say) if (contains(trace.answer, phrase)) failures.push(`says "${phrase}"`);
  const index = trace.retrieved.findIndex((r) => c.support.some((ref) => refMatches(ref, r.source_id, r.version)));
  return {
    id: c.id,
    expect: c.expect,
    actual: trace.outcome,
    reason: trace.reason,
    passed: failures.length === 0,
    supportRank: index < 0 ? null : index + 1,
    failures,
    tags: c.tags,
  };
}

export interface RetrievalMetrics {
  readonly cases: number;
  readonly recallAt: Readonly<Record<'1' | '3' | '5', number>>;
  readonly mrr: number;
  /** Rank of the supporting revision: "1".."8", or "miss". */
  readonly rankDistribution: Readonly<Record<string, number>>;
}

export function retrievalMetrics(judgements: readonly Judgement[], cases: readonly EvalCase[]): RetrievalMetrics {
  const withSupport = new Set(cases.filter((c) => c.expect === 'answer' && c.support.length > 0).map((c) => c.id));
  const ranks = judgements.filter((j) => withSupport.has(j.id)).map((j) => j.supportRank);
  const n = ranks.length;
  const recall = (k: number): number => (n === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / n);
  const distribution: Record<string, number> = {};
  for (const r of ranks) distribution[r === null ? 'miss' : String(r)] = (distribution[r === null ? 'miss' : String(r)] ?? 0) + 1;
  return {
    cases: n,
    recallAt: { '1': recall(1), '3': recall(3), '5': recall(5) },
    mrr: n === 0 ? 0 : ranks.reduce<number>((sum, r) => sum + (r === null ? 0 : 1 / r), 0) / n,
    rankDistribution: distribution,
  };
}

export interface GenerationMetrics {
  readonly answered: number;
  readonly citations: number;
  readonly citationResolutionRate: number;
  readonly citationPrecision: number;
  readonly citationRecall: number;
}

export function generationMetrics(traces: readonly Trace[], support: SupportFn, threshold: number): GenerationMetrics {
  let citations = 0;
  let resolved = 0;
  let precise = 0;
  let sentences = 0;
  let recalled = 0;
  const answered = traces.filter((t) => t.outcome === 'answer');
  for (const t of answered) {
    const byLabel = new Map(t.retrieved.map((r) => [r.label, r]));
    for (const c of t.citations) {
      citations += 1;
      if (byLabel.get(c.label)?.text === c.text) resolved += 1;
    }
    for (const s of t.sentences) {
      sentences += 1;
      const joint = support(t, s.text, s.labels) >= threshold;
      if (joint) recalled += 1;
      for (const label of s.labels) {
        const alone = support(t, s.text, [label]) >= threshold;
        const without = s.labels.filter((l) => l !== label);
        const needed = joint && (without.length === 0 || support(t, s.text, without) < threshold);
        if (alone || needed) precise += 1;
      }
    }
  }
  const pairs = answered.reduce((sum, t) => sum + t.sentences.reduce((s, x) => s + x.labels.length, 0), 0);
  return {
    answered: answered.length,
    citations,
    citationResolutionRate: citations === 0 ? 1 : resolved / citations,
    citationPrecision: pairs === 0 ? 1 : precise / pairs,
    citationRecall: sentences === 0 ? 1 : recalled / sentences,
  };
}

export interface OutcomeMetrics {
  readonly cases: number;
  readonly accuracy: number;
  readonly passRate: number;
  /** expected -> actual -> count */
  readonly confusion: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Answered where the case expects abstain, clarify or out_of_scope: the headline safety number. */
  readonly unsupportedAnswers: readonly string[];
  /** Abstained where the case expects an answer. */
  readonly wrongAbstentions: readonly string[];
}

const OUTCOMES: readonly Outcome[] = ['answer', 'abstain', 'clarify', 'out_of_scope'];

export function outcomeMetrics(judgements: readonly Judgement[]): OutcomeMetrics {
  const confusion = Object.fromEntries(OUTCOMES.map((e) => [e, Object.fromEntries(OUTCOMES.map((a) => [a, 0]))])) as Record<string, Record<string, number>>;
  for (const j of judgements) {
    const row = confusion[j.expect];
    if (row) row[j.actual] = (row[j.actual] ?? 0) + 1;
  }
  const n = judgements.length;
  return {
    cases: n,
    accuracy: n === 0 ? 0 : judgements.filter((j) => j.expect === j.actual).length / n,
    passRate: n === 0 ? 0 : judgements.filter((j) => j.passed).length / n,
    confusion,
    unsupportedAnswers: judgements.filter((j) => j.actual === 'answer' && j.expect !== 'answer').map((j) => j.id),
    wrongAbstentions: judgements.filter((j) => j.expect === 'answer' && j.actual === 'abstain').map((j) => j.id),
  };
}

/** Where scope routing sent each case: a message the case expects routed must never be answered, and one it expects in scope must not be routed away. */
export interface RoutingMetrics {
  /** expected (out_of_scope | in_scope) -> route taken (in_scope or a ROUTING_REASONS reason) -> count */
  readonly confusion: Readonly<Record<'out_of_scope' | 'in_scope', Readonly<Record<string, number>>>>;
  /** Expected out of scope, but answered, abstained or clarified: the safety number. */
  readonly notRouted: readonly string[];
  /** Expected in scope, but routed away. */
  readonly routedAway: readonly string[];
}

const ROUTES = ['in_scope', ...ROUTING_REASONS] as const;

export function routingMetrics(judgements: readonly Judgement[]): RoutingMetrics {
  const routeOf = (j: Judgement): string => (j.actual === 'out_of_scope' ? (j.reason ?? 'in_scope') : 'in_scope');
  const row = (expectOut: boolean) =>
    Object.fromEntries(ROUTES.map((r) => [r, judgements.filter((j) => (j.expect === 'out_of_scope') === expectOut && routeOf(j) === r).length]));
  return {
    confusion: { out_of_scope: row(true), in_scope: row(false) },
    notRouted: judgements.filter((j) => j.expect === 'out_of_scope' && j.actual !== 'out_of_scope').map((j) => j.id),
    routedAway: judgements.filter((j) => j.expect !== 'out_of_scope' && j.actual === 'out_of_scope').map((j) => j.id),
  };
}

export interface FailureMatrix {
  readonly correctSourceNotRetrieved: readonly string[];
  readonly oldAndCurrentRanked: readonly string[];
  readonly unknownLabel: readonly string[];
  readonly ruleWithoutEvidence: readonly string[];
  readonly underspecified: readonly string[];
  readonly forbiddenCited: readonly string[];
}

export function failureMatrix(judgements: readonly Judgement[], traces: ReadonlyMap<string, Trace>, cases: readonly EvalCase[]): FailureMatrix {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const ids = (pred: (j: Judgement, t: Trace | undefined) => boolean): string[] => judgements.filter((j) => pred(j, traces.get(j.id))).map((j) => j.id);
  return {
    correctSourceNotRetrieved: ids((j) => j.expect === 'answer' && (byId.get(j.id)?.support.length ?? 0) > 0 && j.supportRank === null),
    oldAndCurrentRanked: ids((_j, t) => {
      const revisionsBySource = new Map<string, Set<string>>();
      for (const r of t?.retrieved ?? []) revisionsBySource.set(r.source_id, (revisionsBySource.get(r.source_id) ?? new Set()).add(r.revision));
      return [...revisionsBySource.values()].some((s) => s.size > 1);
    }),
    unknownLabel: ids((j) => j.reason === 'CITATION_UNKNOWN'),
    ruleWithoutEvidence: ids((j) => j.reason === 'UNSUPPORTED_CLAIM' || j.reason === 'CITATION_GAP'),
    underspecified: ids((j) => j.actual === 'clarify'),
    forbiddenCited: ids((j) => j.failures.some((f) => f.startsWith('cited forbidden'))),
  };
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
