/** OpenInference span kinds (`openinference.span.kind`) citetrace emits. */
export type SpanKind = 'CHAIN' | 'RETRIEVER' | 'RERANKER' | 'LLM' | 'GUARDRAIL';

/** Span attributes; null and undefined values are left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** One open span: a stage of one ask, or the ask itself. */
export interface TelemetrySpan {
  /** The OpenTelemetry trace id (32 lowercase hex digits), or null when telemetry is off. */
  readonly traceId: string | null;
  /** Attributes, or a function computing them, called only when spans are recorded. */
  set(attributes: SpanAttributes | (() => SpanAttributes)): void;
  /**
   * Question, passage or answer text: recorded only when content capture is enabled
   * (CITETRACE_OTEL_CONTENT=1), and computed only then.
   */
  setContent(attributes: () => SpanAttributes): void;
  /** Mark the span as failed (status ERROR) without throwing. */
  fail(message: string): void;
  /** Run `fn` in a child span, ended when it settles; a throw marks the span failed and is rethrown. */
  child<T>(name: string, kind: SpanKind, fn: (span: TelemetrySpan) => T | Promise<T>): Promise<T>;
}

/** Where spans go: an OpenTelemetry exporter, or nowhere. */
export interface Telemetry {
  /** Run `fn` in a new root span (a new OpenTelemetry trace). */
  root<T>(name: string, kind: SpanKind, fn: (span: TelemetrySpan) => T | Promise<T>): Promise<T>;
  /** Export what is buffered and stop exporting. */
  shutdown(): Promise<void>;
}

const NOOP_SPAN: TelemetrySpan = {
  traceId: null,
  set: () => undefined,
  setContent: () => undefined,
  fail: () => undefined,
  child: async (_name, _kind, fn) => fn(NOOP_SPAN),
};

/** Telemetry off: no spans, no attributes computed, trace ids null. */
export const NOOP_TELEMETRY: Telemetry = {
  root: async (_name, _kind, fn) => fn(NOOP_SPAN),
  shutdown: () => Promise.resolve(),
};
