import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { SPAN_KIND } from './attributes.js';
import type { SpanAttributes, SpanKind, Telemetry, TelemetrySpan } from './telemetry.js';

export interface OtelTelemetryOptions {
  /** Where finished spans go: a batching OTLP exporter in service, an in-memory one in tests. */
  readonly spanProcessors: readonly SpanProcessor[];
  readonly serviceName: string;
  /** Record question, passage and answer text (setContent); off, only ids, scores and counts. */
  readonly content: boolean;
}

const defined = (attributes: SpanAttributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter((entry): entry is [string, string | number | boolean] => entry[1] !== null && entry[1] !== undefined));

/**
 * Telemetry on an OpenTelemetry TracerProvider of its own: nothing is registered globally, and
 * parents are passed explicitly, so no context manager is needed and runtimes stay independent.
 */
export function otelTelemetry(options: OtelTelemetryOptions): Telemetry {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    spanProcessors: [...options.spanProcessors],
  });
  const tracer = provider.getTracer('citetrace');

  const run = async <T>(name: string, kind: SpanKind, parent: Context, fn: (span: TelemetrySpan) => T | Promise<T>): Promise<T> => {
    const span = tracer.startSpan(name, { attributes: { [SPAN_KIND]: kind } }, parent);
    const context = trace.setSpan(parent, span);
    const handle: TelemetrySpan = {
      traceId: span.spanContext().traceId,
      set: (attributes) => span.setAttributes(defined(typeof attributes === 'function' ? attributes() : attributes)),
      setContent: (attributes) => {
        if (options.content) span.setAttributes(defined(attributes()));
      },
      fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
      child: (childName, childKind, childFn) => run(childName, childKind, context, childFn),
    };
    try {
      return await fn(handle);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      span.recordException(failure);
      handle.fail(failure.message);
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    root: (name, kind, fn) => run(name, kind, ROOT_CONTEXT, fn),
    // An unreachable collector must not fail a command that already answered: the spans are lost, nothing else.
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
