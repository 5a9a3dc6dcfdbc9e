import type { OtelTelemetryOptions } from './otel.js';
import type { OtlpTelemetryOptions } from './otlp.js';
import type { Telemetry } from './telemetry.js';

// The OpenTelemetry SDK and exporter take a few hundred milliseconds to import: they load only
// when telemetry is switched on, so a CLI run without an endpoint pays nothing for them.

/** Telemetry on an OpenTelemetry SDK with the given span processors (tests: an in-memory exporter). */
export async function createOtelTelemetry(options: OtelTelemetryOptions): Promise<Telemetry> {
  return (await import('./otel.js')).otelTelemetry(options);
}

/** Telemetry exporting by OTLP/HTTP protobuf to `endpoint`, batched; `shutdown` flushes. */
export async function createOtlpTelemetry(options: OtlpTelemetryOptions): Promise<Telemetry> {
  return (await import('./otlp.js')).otlpTelemetry(options);
}
