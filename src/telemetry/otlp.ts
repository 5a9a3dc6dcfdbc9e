import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { otelTelemetry } from './otel.js';
import type { Telemetry } from './telemetry.js';

export interface OtlpTelemetryOptions {
  /** The full OTLP/HTTP traces URL, e.g. http://localhost:4318/v1/traces (Jaeger, Langfuse, a Collector) or http://localhost:6006/v1/traces (Phoenix). */
  readonly endpoint: string;
  readonly serviceName: string;
  readonly content: boolean;
}

/**
 * Spans batched and exported as OTLP/HTTP protobuf, the encoding every OTLP receiver accepts
 * (Phoenix refuses JSON). Headers, timeout and TLS settings come from the standard
 * OTEL_EXPORTER_OTLP_* variables, which the exporter reads itself. `shutdown` flushes.
 */
export function otlpTelemetry(options: OtlpTelemetryOptions): Telemetry {
  return otelTelemetry({
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.endpoint }) })],
    serviceName: options.serviceName,
    content: options.content,
  });
}
