import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { TraceSchema, type Trace } from '../src/domain/index.js';
import { createExtractiveGenerator, type Generator } from '../src/generate/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { openRuntime, type Runtime } from '../src/main.js';
import type { Assistant } from '../src/pipeline/index.js';
import { createOtelTelemetry, NOOP_TELEMETRY, type Telemetry } from '../src/telemetry/index.js';
import { createSqliteTraceStore, type TraceStore } from '../src/trace/index.js';
import { assistantOver, CLOCK, DEMO_CORPUS, realEmbedder, runBin, tempDir, testConfig } from './helpers.js';

const QUESTION = 'How much is the no-show fee?';

/** Spans of one OpenTelemetry trace, in the order they ended (children before their parent). */
const spansOf = (exporter: InMemorySpanExporter, t: Trace): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === t.otel_trace_id);
const byName = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const span = spans.find((s) => s.name === name);
  if (span === undefined) throw new Error(`no ${name} span among ${spans.map((s) => s.name).join(', ')}`);
  return span;
};
const strings = (spans: readonly ReadableSpan[]): string[] => spans.flatMap((s) => Object.values(s.attributes).filter((v): v is string => typeof v === 'string'));

describe('OpenTelemetry spans per ask', () => {
  let runtime: Runtime;
  let dataDir: string;
  let store: TraceStore;
  const exporter = new InMemorySpanExporter();
  const telemetry = (content: boolean): Promise<Telemetry> =>
    createOtelTelemetry({ spanProcessors: [new SimpleSpanProcessor({ exporter })], serviceName: 'citetrace-test', content });
  let plain: Telemetry;
  let withContent: Telemetry;
  let withGenerator: (generator: Generator) => Assistant;

  beforeAll(async () => {
    [plain, withContent] = await Promise.all([telemetry(false), telemetry(true)]);
    dataDir = await tempDir('citetrace-data-');
    const embedder = await realEmbedder();
    await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder, now: CLOCK() });
    runtime = await openRuntime({ config: testConfig(dataDir), embedder, clock: CLOCK, telemetry: plain });
    store = createSqliteTraceStore({ file: ':memory:' });
    withGenerator = (generator) => assistantOver(runtime, embedder, { generator, store, telemetry: plain });
  });
  afterAll(async () => {
    await store.close();
    await runtime.close();
    await Promise.all([plain.shutdown(), withContent.shutdown()]);
  });
  beforeEach(() => {
    exporter.reset();
  });

  it('one ask: a CHAIN root with the stage spans in order, one trace id, stored in the citetrace trace', async () => {
    const trace = await runtime.assistant.ask({ question: QUESTION, role: 'patient' });
    expect(trace.outcome).toBe('answer');
    expect(trace.otel_trace_id).toMatch(/^[0-9a-f]{32}$/u);
    const spans = spansOf(exporter, trace);
    expect(spans.map((s) => s.name)).toEqual(['normalize', 'route', 'retrieve', 'judge', 'generate', 'validate', 'persist', 'ask']);
    expect(exporter.getFinishedSpans()).toHaveLength(spans.length);

    const root = byName(spans, 'ask');
    expect(root.parentSpanContext).toBeUndefined();
    for (const s of spans.filter((x) => x !== root)) expect(s.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(root.resource.attributes['service.name']).toBe('citetrace-test');
    expect(root.attributes).toMatchObject({
      'openinference.span.kind': 'CHAIN',
      'citetrace.trace_id': trace.trace_id,
      'citetrace.outcome': 'answer',
      'citetrace.role': 'patient',
      'citetrace.retrieved': trace.retrieved.length,
    });
    expect(root.attributes).not.toHaveProperty('citetrace.reason');

    const retrieve = byName(spans, 'retrieve');
    expect(retrieve.attributes['openinference.span.kind']).toBe('RETRIEVER');
    expect(trace.retrieved.length).toBeGreaterThan(0);
    trace.retrieved.forEach((r, i) => {
      expect(retrieve.attributes[`retrieval.documents.${i}.document.id`]).toBe(`${r.source_id}@${r.chunk_id}`);
      expect(retrieve.attributes[`retrieval.documents.${i}.document.score`]).toBe(r.score);
      expect(JSON.parse(String(retrieve.attributes[`retrieval.documents.${i}.document.metadata`]))).toMatchObject({ label: r.label, revision: r.revision });
    });
    expect(byName(spans, 'judge').attributes).toMatchObject({ 'openinference.span.kind': 'RERANKER', 'citetrace.judge.model': runtime.judge.modelId });
    expect(byName(spans, 'generate').attributes['openinference.span.kind']).toBe('CHAIN');
    expect(byName(spans, 'validate').attributes).toMatchObject({ 'openinference.span.kind': 'GUARDRAIL', 'citetrace.valid': true });
    expect(spans.every((s) => s.status.code !== SpanStatusCode.ERROR)).toBe(true);

    expect((await runtime.store.get(trace.trace_id))?.trace.otel_trace_id).toBe(trace.otel_trace_id);
  });

  it('puts no question, passage or answer text into any span unless content is enabled', async () => {
    const trace = await runtime.assistant.ask({ question: QUESTION, role: 'patient' });
    const texts = [QUESTION, trace.query, trace.normalized_query, trace.answer, ...trace.retrieved.map((r) => r.text)];
    const spans = spansOf(exporter, trace);
    const keys = spans.flatMap((s) => Object.keys(s.attributes));
    expect(keys.filter((k) => /^(input|output)\.value$|\.content$/u.test(k))).toEqual([]);
    for (const value of strings(spans)) for (const text of texts) expect(value.includes(text), `${value} carries ${text}`).toBe(false);

    const shown = await openRuntime({ config: testConfig(dataDir), embedder: await realEmbedder(), clock: CLOCK, telemetry: withContent });
    try {
      const contentTrace = await shown.assistant.ask({ question: QUESTION, role: 'patient' });
      const contentSpans = spansOf(exporter, contentTrace);
      expect(byName(contentSpans, 'ask').attributes).toMatchObject({ 'input.value': contentTrace.query, 'output.value': contentTrace.answer });
      const retrieve = byName(contentSpans, 'retrieve');
      expect(contentTrace.retrieved.map((_r, i) => retrieve.attributes[`retrieval.documents.${i}.document.content`])).toEqual(contentTrace.retrieved.map((r) => r.text));
    } finally {
      await shown.close();
    }
  });

  it('an out-of-scope question skips retrieval and generation spans', async () => {
    const trace = await runtime.assistant.ask({ question: 'My father collapsed and is not breathing', role: 'patient' });
    expect(trace.outcome).toBe('out_of_scope');
    const spans = spansOf(exporter, trace);
    expect(spans.map((s) => s.name)).toEqual(['normalize', 'route', 'persist', 'ask']);
    expect(byName(spans, 'route').attributes['citetrace.in_scope']).toBe(false);
    expect(byName(spans, 'ask').attributes).toMatchObject({ 'citetrace.outcome': 'out_of_scope', 'citetrace.reason': 'EMERGENCY' });
  });

  it('a model-backed generator makes an LLM span with GenAI and OpenInference model and token attributes', async () => {
    const extractive = createExtractiveGenerator();
    const model: Generator = {
      id: 'scripted-llm',
      promptVersion: 'test',
      model: { system: 'openai', name: 'requested-model' },
      generate: async (request) => ({ ...(await extractive.generate(request)), usage: { model: 'served-model', prompt_tokens: 120, completion_tokens: 30, latency_ms: 5 } }),
    };
    const trace = await withGenerator(model).ask({ question: QUESTION, role: 'patient' });
    expect(trace.outcome).toBe('answer');
    const generate = byName(spansOf(exporter, trace), 'generate');
    expect(generate.attributes).toMatchObject({
      'openinference.span.kind': 'LLM',
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'requested-model',
      'gen_ai.response.model': 'served-model',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'llm.system': 'openai',
      'llm.model_name': 'served-model',
      'llm.token_count.prompt': 120,
      'llm.token_count.completion': 30,
      'llm.token_count.total': 150,
    });
  });

  it('GENERATOR_ERROR marks the generate span and the root span as errors', async () => {
    const failing: Generator = {
      id: 'failing',
      promptVersion: 'test',
      model: { system: 'openai', name: 'down-model' },
      generate: () => Promise.reject(new Error('connection refused')),
    };
    const trace = await withGenerator(failing).ask({ question: QUESTION, role: 'patient' });
    expect(trace.reason).toBe('GENERATOR_ERROR');
    const spans = spansOf(exporter, trace);
    expect(spans.map((s) => s.name)).toEqual(['normalize', 'route', 'retrieve', 'judge', 'generate', 'persist', 'ask']);
    const generate = byName(spans, 'generate');
    expect(generate.status).toEqual({ code: SpanStatusCode.ERROR, message: 'connection refused' });
    expect(generate.events.map((e) => e.name)).toEqual(['exception']);
    expect(byName(spans, 'ask').status.code).toBe(SpanStatusCode.ERROR);
    expect(byName(spans, 'ask').attributes['citetrace.reason']).toBe('GENERATOR_ERROR');
  });

  it('without an OTLP endpoint telemetry is off and the trace says so', async () => {
    const off = await openRuntime({ config: loadConfig({ env: { CITETRACE_DATA: dataDir } }), embedder: await realEmbedder(), clock: CLOCK });
    try {
      const trace = await off.assistant.ask({ question: QUESTION, role: 'patient' });
      expect(trace.otel_trace_id).toBeNull();
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe('span attributes given as a function', () => {
  it('are computed when spans are recorded, and never when telemetry is off', async () => {
    let computed = 0;
    const attributes = () => {
      computed += 1;
      return { 'citetrace.test': 'yes' };
    };
    await NOOP_TELEMETRY.root('off', 'CHAIN', (span) => { span.set(attributes); });
    expect(computed).toBe(0);
    const recording = new InMemorySpanExporter();
    const on = await createOtelTelemetry({ spanProcessors: [new SimpleSpanProcessor({ exporter: recording })], serviceName: 'citetrace-test', content: false });
    try {
      await on.root('on', 'CHAIN', (span) => { span.set(attributes); });
      expect(computed).toBe(1);
      expect(recording.getFinishedSpans()[0]?.attributes['citetrace.test']).toBe('yes');
    } finally {
      await on.shutdown();
    }
  });
});

describe('OpenTelemetry configuration', () => {
  const telemetryOf = (env: Record<string, string>) => loadConfig({ env: { CITETRACE_DATA: 'x', ...env } }).telemetry;

  it('follows the OTEL_* environment rules', () => {
    expect(telemetryOf({})).toBeUndefined();
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({ endpoint: 'http://collector:4318/v1/traces', serviceName: 'citetrace', content: false });
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:6006/v1/traces', OTEL_SERVICE_NAME: 'clinic', CITETRACE_OTEL_CONTENT: '1' })).toEqual({
      endpoint: 'http://b:6006/v1/traces',
      serviceName: 'clinic',
      content: true,
    });
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(() => telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/telemetry\.endpoint/u);
  });
});

// A protobuf wire-format reader, just enough to read OTLP ExportTraceServiceRequest messages.
interface Field {
  readonly no: number;
  readonly bytes: Buffer;
}
function varint(buf: Buffer, start: number): [bigint, number] {
  let value = 0n;
  for (let at = start, shift = 0n; ; at += 1, shift += 7n) {
    const byte = buf[at]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at + 1];
  }
}
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  for (let at = 0; at < buf.length; ) {
    const [key, next] = varint(buf, at);
    const wire = Number(key & 7n);
    const no = Number(key >> 3n);
    if (wire === 0) {
      const [, end] = varint(buf, next);
      out.push({ no, bytes: buf.subarray(next, end) });
      at = end;
    } else if (wire === 2) {
      const [length, from] = varint(buf, next);
      out.push({ no, bytes: buf.subarray(from, from + Number(length)) });
      at = from + Number(length);
    } else {
      const size = wire === 1 ? 8 : 4;
      out.push({ no, bytes: buf.subarray(next, next + size) });
      at = next + size;
    }
  }
  return out;
}
const sub = (buf: Buffer, no: number): Buffer[] => fields(buf).filter((f) => f.no === no).map((f) => f.bytes);
/** KeyValue (1 key, 2 AnyValue); only string values (AnyValue field 1) are read. */
const stringAttributes = (kvs: readonly Buffer[]): Record<string, string> =>
  Object.fromEntries(kvs.flatMap((kv) => sub(sub(kv, 2)[0] ?? Buffer.alloc(0), 1).map((v) => [sub(kv, 1)[0]?.toString('utf8') ?? '', v.toString('utf8')])));

interface ExportedSpan {
  readonly service: string | undefined;
  readonly traceId: string;
  readonly name: string;
  readonly attributes: Record<string, string>;
}
/** ExportTraceServiceRequest: 1 ResourceSpans (1 Resource (1 attributes), 2 ScopeSpans (2 Span: 1 trace_id, 5 name, 9 attributes)). */
function exportedSpans(body: Buffer): ExportedSpan[] {
  return sub(body, 1).flatMap((rs) => {
    const service = stringAttributes(sub(sub(rs, 1)[0] ?? Buffer.alloc(0), 1))['service.name'];
    return sub(rs, 2).flatMap((ss) =>
      sub(ss, 2).map((span) => ({ service, traceId: sub(span, 1)[0]?.toString('hex') ?? '', name: sub(span, 5)[0]?.toString('utf8') ?? '', attributes: stringAttributes(sub(span, 9)) })),
    );
  });
}

describe('OTLP/HTTP export from a citetrace process', () => {
  let server: Server;
  let endpoint: string;
  const received: { path: string; contentType: string; body: Buffer }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw });
        // An empty ExportTraceServiceResponse: full success.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('citetrace ask exports its spans, flushed before exit, carrying the citetrace trace id', async () => {
    const dataDir = await tempDir('citetrace-data-');
    expect((await runBin(['ingest', DEMO_CORPUS], { CITETRACE_DATA: dataDir })).code).toBe(0);
    const asked = await runBin(['ask', QUESTION, '--json'], { CITETRACE_DATA: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'citetrace-e2e' });
    expect(asked.code, asked.stderr).toBe(0);
    const trace = TraceSchema.parse(JSON.parse(asked.stdout));
    expect(trace.otel_trace_id).toMatch(/^[0-9a-f]{32}$/u);

    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.path === '/v1/traces' && r.contentType === 'application/x-protobuf')).toBe(true);
    const spans = received.flatMap((r) => exportedSpans(r.body)).filter((s) => s.traceId === trace.otel_trace_id);
    expect(spans.map((s) => s.name).sort()).toEqual(['ask', 'generate', 'judge', 'normalize', 'persist', 'retrieve', 'route', 'validate']);
    const root = spans.find((s) => s.name === 'ask');
    expect(root?.service).toBe('citetrace-e2e');
    expect(root?.attributes).toMatchObject({ 'openinference.span.kind': 'CHAIN', 'citetrace.trace_id': trace.trace_id, 'citetrace.outcome': trace.outcome });
  });
});
