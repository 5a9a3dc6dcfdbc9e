import { Counter, Histogram, Registry } from 'prom-client';
import type { Trace } from '../domain/index.js';

/** Prometheus metrics: counts per outcome and reason, citation resolution, latency histograms. No question text, ever. */
export interface ServiceMetrics {
  readonly registry: Registry;
  observeAsk(trace: Trace, seconds: number): void;
  observeRequest(route: string, status: number, seconds: number): void;
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
  return {
    registry,
    observeAsk(trace, seconds) {
      answers.inc({ outcome: trace.outcome, reason: trace.reason ?? 'none' });
      askSeconds.observe(seconds);
      const labels = new Map(trace.retrieved.map((r) => [r.label, r.text]));
      for (const c of trace.citations) citations.inc({ resolved: labels.get(c.label) === c.text ? 'true' : 'false' });
    },
    observeRequest(route, status, seconds) {
      httpSeconds.observe({ route, status: String(status) }, seconds);
    },
  };
}
