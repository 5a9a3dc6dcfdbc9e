export { ioContent, llmRequestAttributes, llmUsageAttributes, retrievalAttributes, retrievalContent, traceAttributes } from './attributes.js';
export { createOtelTelemetry, createOtlpTelemetry } from './factory.js';
export type { OtelTelemetryOptions } from './otel.js';
export type { OtlpTelemetryOptions } from './otlp.js';
export { NOOP_TELEMETRY, type SpanAttributes, type SpanKind, type Telemetry, type TelemetrySpan } from './telemetry.js';
