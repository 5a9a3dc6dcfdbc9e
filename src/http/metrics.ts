import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Trace } from '../domain/index.js';

/** Prometheus metrics: counts per outcome and reason, citation resolution, latency histograms. No question text, ever. */
export interface ServiceMetrics {
  readonly registry: Registry;
  observeAsk(trace: Trace, seconds: number): void;
  observeRequest(route: string, status: number, seconds: number): void;
  /** The index commit answering, and whether a newer one could not be read or opened. */
  observeIndex(state: { readonly seq: number; readonly stale: boolean }): void;
  observeIndexFailure(): void;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const answers = new Counter({ name: 'citetrace_answers_total', help: 'Questions answered, by outcome and reason', labelNames: ['outcome', 'reason'], registers: [registry] });
  const citations = new Counter({ name: 'citetrace_citations_total', help: 'Citations shown, by whether they resolved to a retrieved passage', labelNames: ['resolved'], registers: [registry] });
  const askSeconds = new Histogram({
    name: 'citetrace_ask_duration_seconds',
    help: 'End-to-end pipeline latency per question, trace commit included',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const httpSeconds = new Histogram({
    name: 'citetrace_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  const indexCommit = new Gauge({ name: 'citetrace_index_commit', help: 'Sequence number of the index commit answering questions', registers: [registry] });
  const indexStale = new Gauge({
    name: 'citetrace_index_stale',
    help: '1 when the last check could not read the index manifest or open a newer commit (the last good one answers), else 0',
    registers: [registry],
  });
  const indexFailures = new Counter({ name: 'citetrace_index_check_failures_total', help: 'Index checks that could not read the manifest or open a newer commit', registers: [registry] });
  let asked = 0;
  let abstained = 0;
  let shown = 0;
  let unresolved = 0;
  new Gauge({
    name: 'citetrace_abstention_ratio',
    help: 'Share of questions answered with an abstention since start',
    registers: [registry],
    collect() {
      this.set(asked === 0 ? 0 : abstained / asked);
    },
  });
  new Gauge({
    name: 'citetrace_unresolved_citation_ratio',
    help: 'Share of shown citations that did not resolve to a retrieved passage since start (must stay 0)',
    registers: [registry],
    collect() {
      this.set(shown === 0 ? 0 : unresolved / shown);
    },
  });
  return {
    registry,
    observeAsk(trace, seconds) {
      answers.inc({ outcome: trace.outcome, reason: trace.reason ?? 'none' });
      askSeconds.observe(seconds);
      asked += 1;
      if (trace.outcome === 'abstain') abstained += 1;
      const labels = new Map(trace.retrieved.map((r) => [r.label, r.text]));
      for (const c of trace.citations) {
        const resolved = labels.get(c.label) === c.text;
        shown += 1;
        if (!resolved) unresolved += 1;
        citations.inc({ resolved: String(resolved) });
      }
    },
    observeRequest(route, status, seconds) {
      httpSeconds.observe({ route, status: String(status) }, seconds);
    },
    observeIndex({ seq, stale }) {
      indexCommit.set(seq);
      indexStale.set(stale ? 1 : 0);
    },
    observeIndexFailure() {
      indexFailures.inc();
    },
  };
}
