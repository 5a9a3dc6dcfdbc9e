import type { Retrieved, Trace } from '../domain/index.js';
import type { GenerationUsage, ModelIdentity } from '../generate/index.js';
import type { SpanAttributes } from './telemetry.js';

/**
 * Span attributes by the OpenInference semantic conventions (what Arize Phoenix reads:
 * https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md) and the
 * OpenTelemetry GenAI conventions (gen_ai.*, what Langfuse and Jaeger users query), plus
 * citetrace's own (citetrace.*) that tie a span to its stored trace.
 */
export const SPAN_KIND = 'openinference.span.kind';

/** Text in and out of a span (input.value / output.value): content, so only via setContent. */
export function ioContent(input: string | null, output: string | null): SpanAttributes {
  return { 'input.value': input, 'output.value': output };
}

/** The root span: which stored trace this is and what was decided. */
export function traceAttributes(t: Trace): SpanAttributes {
  return {
    'citetrace.trace_id': t.trace_id,
    'citetrace.outcome': t.outcome,
    'citetrace.reason': t.reason,
    'citetrace.role': t.role,
    'citetrace.as_of': t.as_of,
    'citetrace.retrieved': t.retrieved.length,
    'citetrace.cited': t.citations.length,
    'citetrace.retriever': t.config.retriever,
    'citetrace.generator': t.config.generator,
    'citetrace.prompt_version': t.config.prompt_version,
    'citetrace.index_snapshot': t.config.index_snapshot,
  };
}

const doc = (i: number, field: string): string => `retrieval.documents.${i}.document.${field}`;

/** The RETRIEVER span's documents in rank order: id (source@chunk), fused score, and where it sits in the trace. */
export function retrievalAttributes(retrieved: readonly Retrieved[]): SpanAttributes {
  return Object.fromEntries(
    retrieved.flatMap((r, i): [string, string | number][] => [
      [doc(i, 'id'), `${r.source_id}@${r.chunk_id}`],
      [doc(i, 'score'), r.score],
      [doc(i, 'metadata'), JSON.stringify({ label: r.label, source_id: r.source_id, revision: r.revision, version: r.version, rank: r.rank, offered: r.offered })],
    ]),
  );
}

/** The passages' text (document.content): content, so only via setContent. */
export function retrievalContent(retrieved: readonly Retrieved[]): SpanAttributes {
  return Object.fromEntries(retrieved.map((r, i) => [doc(i, 'content'), r.text]));
}

/** An LLM span before the call: the system and the requested model. */
export function llmRequestAttributes(model: ModelIdentity): SpanAttributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': model.system,
    'gen_ai.provider.name': model.system,
    'gen_ai.request.model': model.name,
    'llm.system': model.system,
    'llm.model_name': model.name,
  };
}

/** An LLM span after the call: the model that answered and the tokens it counted. */
export function llmUsageAttributes(usage: GenerationUsage): SpanAttributes {
  const total = usage.prompt_tokens === null || usage.completion_tokens === null ? null : usage.prompt_tokens + usage.completion_tokens;
  return {
    'gen_ai.response.model': usage.model,
    'gen_ai.usage.input_tokens': usage.prompt_tokens,
    'gen_ai.usage.output_tokens': usage.completion_tokens,
    'llm.model_name': usage.model,
    'llm.token_count.prompt': usage.prompt_tokens,
    'llm.token_count.completion': usage.completion_tokens,
    'llm.token_count.total': total,
  };
}
