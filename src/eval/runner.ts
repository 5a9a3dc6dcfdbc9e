import { stripLabels, SUPPORT_THRESHOLD, supportScore } from '../cite/index.js';
import type { IsoDate, RevisionId, RevisionMeta, Trace } from '../domain/index.js';
import type { Assistant } from '../pipeline/index.js';
import type { EvalCase } from './cases.js';
import {
  failureMatrix,
  generationMetrics,
  judgeCase,
  outcomeMetrics,
  percentile,
  routingMetrics,
  retrievalMetrics,
  type FailureMatrix,
  type GenerationMetrics,
  type Judgement,
  type OutcomeMetrics,
  type RetrievalMetrics,
  type RoutingMetrics,
  type SupportFn,
} from './metrics.js';

export interface SweepPoint {
  readonly k: number;
  readonly accuracy: number;
  /** Answer cases answered with a citation of a supporting revision. */
  readonly citationCoverage: number;
  readonly unsupportedAnswers: number;
  readonly latencyMs: { readonly p50: number; readonly p95: number };
}

export interface EvalMetrics {
  readonly cases: number;
  readonly k: number;
  readonly outcomes: OutcomeMetrics;
  readonly retrieval: RetrievalMetrics;
  readonly generation: GenerationMetrics;
  readonly failures: FailureMatrix;
  readonly routing: RoutingMetrics;
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  readonly byTag: Readonly<Record<string, { readonly cases: number; readonly passed: number }>>;
  readonly sweep: readonly SweepPoint[];
  /** Smallest k whose sweep point meets the goals (accuracy >= 0.95, no unsupported answer, coverage >= 0.95). */
  readonly smallestGoodK: number | null;
}

export interface EvalReport {
  readonly metrics: EvalMetrics;
  /** Each case with its trace and how long its `ask` took (absent in reports written before it was recorded). */
  readonly cases: readonly (Judgement & { readonly trace: Trace; readonly latencyMs?: number })[];
}

/** Support as the validator scores it, rebuilt from a stored trace and the index's revision titles. */
export function traceSupport(revisions: ReadonlyMap<RevisionId, RevisionMeta>): SupportFn {
  return (trace, sentence, labels) => {
    const cited = trace.retrieved
      .filter((r) => labels.includes(r.label))
      .map((r) => ({ passage: { text: r.text, start: r.start, end: r.end, headings: [] }, revision: { title: revisions.get(r.revision)?.title ?? '' } }));
    return supportScore(stripLabels(sentence), cited);
  };
}

interface Run {
  readonly traces: Map<string, Trace>;
  readonly latencies: number[];
  readonly latencyById: Map<string, number>;
}

async function runCases(assistant: Assistant, cases: readonly EvalCase[], asOf: IsoDate | undefined, onCase: () => void): Promise<Run> {
  const traces = new Map<string, Trace>();
  const latencies: number[] = [];
  const latencyById = new Map<string, number>();
  for (const c of cases) {
    const start = performance.now();
    traces.set(c.id, await assistant.ask({ question: c.question, role: c.role, asOf: c.as_of ?? asOf }));
    const elapsed = performance.now() - start;
    latencies.push(elapsed);
    latencyById.set(c.id, elapsed);
    onCase();
  }
  return { traces, latencies, latencyById };
}

function judgeAll(cases: readonly EvalCase[], run: Run): Judgement[] {
  return cases.flatMap((c) => {
    const trace = run.traces.get(c.id);
    return trace === undefined ? [] : [judgeCase(c, trace)];
  });
}

function sweepPoint(k: number, cases: readonly EvalCase[], run: Run): SweepPoint {
  const judgements = judgeAll(cases, run);
  const outcomes = outcomeMetrics(judgements);
  const answerCases = judgements.filter((j) => j.expect === 'answer');
  const covered = answerCases.filter((j) => j.actual === 'answer' && !j.failures.some((f) => f.startsWith('no citation'))).length;
  return {
    k,
    accuracy: outcomes.accuracy,
    citationCoverage: answerCases.length === 0 ? 1 : covered / answerCases.length,
    unsupportedAnswers: outcomes.unsupportedAnswers.length,
    latencyMs: { p50: percentile(run.latencies, 50), p95: percentile(run.latencies, 95) },
  };
}

/**
 * Run every case through exactly the pipeline `ask` uses (traces are persisted by it), score
 * retrieval, generation and outcomes separately, and optionally sweep the context budget k.
 */
export async function runEval(options: {
  readonly cases: readonly EvalCase[];
  readonly k: number;
  readonly assistantFor: (k: number) => Assistant;
  readonly revisions: ReadonlyMap<RevisionId, RevisionMeta>;
  readonly asOf?: IsoDate | undefined;
  readonly sweep?: readonly number[];
  readonly onProgress?: (done: number, total: number) => void;
}): Promise<EvalReport> {
  const { cases } = options;
  const sweepKs = options.sweep ?? [];
  const total = cases.length * (1 + sweepKs.length);
  let done = 0;
  const tick = (): void => {
    done += 1;
    options.onProgress?.(done, total);
  };
  const main = await runCases(options.assistantFor(options.k), cases, options.asOf, tick);
  const judgements = judgeAll(cases, main);
  const sweep: SweepPoint[] = [];
  for (const k of sweepKs) sweep.push(sweepPoint(k, cases, await runCases(options.assistantFor(k), cases, options.asOf, tick)));

  const byTag: Record<string, { cases: number; passed: number }> = {};
  for (const j of judgements) {
    for (const tag of j.tags) {
      const entry = (byTag[tag] ??= { cases: 0, passed: 0 });
      entry.cases += 1;
      if (j.passed) entry.passed += 1;
    }
  }
  const metrics: EvalMetrics = {
    cases: cases.length,
    k: options.k,
    outcomes: outcomeMetrics(judgements),
    retrieval: retrievalMetrics(judgements, cases),
    generation: generationMetrics([...main.traces.values()], traceSupport(options.revisions), SUPPORT_THRESHOLD),
    failures: failureMatrix(judgements, main.traces, cases),
    routing: routingMetrics(judgements),
    latencyMs: { p50: percentile(main.latencies, 50), p95: percentile(main.latencies, 95) },
    byTag,
    sweep,
    smallestGoodK: sweep.find((p) => p.accuracy >= 0.95 && p.unsupportedAnswers === 0 && p.citationCoverage >= 0.95)?.k ?? null,
  };
  return {
    metrics,
    cases: judgements.map((j) => {
      const trace = main.traces.get(j.id);
      if (trace === undefined) throw new Error(`no trace for case ${j.id}`);
      return { ...j, trace, latencyMs: main.latencyById.get(j.id) ?? 0 };
    }),
  };
}
