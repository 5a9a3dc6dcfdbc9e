import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { askRoleOf, type KeyStore } from '../auth/index.js';
import { assertNever, CitationSchema, CitetraceError, IsoDateSchema, OutcomeSchema, ReasonSchema, TraceSchema } from '../domain/index.js';
import { findingsOf, verifyTraces } from '../eval/index.js';
import { GENERATOR_KINDS } from '../generate/generator.js';
import { describeSources } from '../index-store/index.js';
import { MAX_QUESTION_CHARS } from '../policy/index.js';
import { listedQuery, payloadOf } from '../trace/index.js';
import type { Admission } from './admission.js';
import { requireRole } from './auth.js';
import type { ServiceContext } from './context.js';
import { problem, sendProblem } from './problem.js';

const ProblemSchema = z.object({ type: z.string(), title: z.string(), status: z.number(), detail: z.string() });
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema };

export const ASK_ROUTE = '/v1/ask';

/**
 * 503 with Retry-After and a problem body: the service is full, come back later. The body is
 * serialized here, so a refusal skips the response serializer: refusing must stay cheap.
 */
export function sendOverloaded(reply: FastifyReply, admission: Admission, retryAfterSeconds = admission.retryAfterSeconds()): FastifyReply {
  const { maxInflight, maxQueue } = admission.limits;
  const body = problem(503, `overloaded: ${maxInflight} questions in progress and ${maxQueue} waiting; retry in ${retryAfterSeconds} s`, 'OVERLOADED');
  return reply.code(503).header('retry-after', String(retryAfterSeconds)).type('application/problem+json').send(JSON.stringify(body));
}

export const AskBodySchema = z.object({
  // The published limit is the one enforced, with the same words as the CLI's.
  question: z.string().max(MAX_QUESTION_CHARS, { error: (issue) => `the question is ${typeof issue.input === 'string' ? issue.input.length : 'too many'} characters; the limit is ${MAX_QUESTION_CHARS}` }),
  as_of: IsoDateSchema.optional(),
});

/** What a patient-facing client gets: the answer, its citations and the trace id; the internal reason stays in the trace. */
export const AskResponseSchema = z.object({
  trace_id: z.string(),
  outcome: OutcomeSchema,
  answer: z.string(),
  citations: z.array(CitationSchema),
  as_of: IsoDateSchema,
});

const TraceSummarySchema = z.object({
  trace_id: z.string(),
  created_at: z.string(),
  role: z.string(),
  outcome: OutcomeSchema,
  reason: ReasonSchema.nullable(),
  query: z.string(),
  cited_sources: z.array(z.string()),
});

const TraceListQuerySchema = z.object({
  outcome: OutcomeSchema.optional(),
  reason: ReasonSchema.optional(),
  source: z.string().optional(),
  from: IsoDateSchema.optional(),
  to: IsoDateSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.coerce.number().int().positive().optional(),
});

const SourceSchema = z.object({
  source_id: z.string(),
  title: z.string(),
  owner: z.string().nullable(),
  withdrawn: z.boolean(),
  stale: z.boolean(),
  in_force: z.object({ patient: z.string().nullable(), staff: z.string().nullable() }),
  revisions: z.array(
    z.object({
      revision: z.string(),
      version: z.string().nullable(),
      status: z.string(),
      effective_date: z.string(),
      review_by: z.string().nullable(),
      stale: z.boolean(),
      present: z.boolean(),
      audience: z.array(z.string()).readonly(),
      path: z.string(),
    }),
  ).readonly(),
});

export function registerApi(app: FastifyInstance, ctx: ServiceContext, keys: KeyStore, admission: Admission): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const anyKey = requireRole(keys, ['patient', 'staff', 'operator']);
  const operator = requireRole(keys, ['operator']);

  api.post(ASK_ROUTE, {
    schema: {
      summary: 'Answer a question; the role comes from the API key; 503 with Retry-After when the service is full',
      body: AskBodySchema,
      response: { 200: AskResponseSchema, ...errors, 503: ProblemSchema },
    },
    preHandler: anyKey,
  }, async (request, reply) => {
    const key = request.apiKey;
    if (key === null) throw new CitetraceError('INTERNAL', 'authenticated route without a key');
    // A client that hangs up while queued gives its place back unanswered.
    const gone = new AbortController();
    reply.raw.once('close', () => {
      gone.abort();
    });
    const admitted = await admission.run({
      work: () => ctx.ask({ question: request.body.question, role: askRoleOf(key.role), asOf: request.body.as_of }),
      signal: gone.signal,
    });
    switch (admitted.status) {
      case 'done': {
        const trace = admitted.value;
        return { trace_id: trace.trace_id, outcome: trace.outcome, answer: trace.answer, citations: trace.citations, as_of: trace.as_of };
      }
      case 'refused':
        return sendOverloaded(reply, admission, admitted.retryAfterSeconds);
      case 'abandoned':
        // Nobody is listening; answer anyway so the request ends like every other one.
        return sendProblem(reply, problem(503, 'the client left before its turn', 'OVERLOADED'));
      default:
        return assertNever(admitted);
    }
  });

  api.get('/v1/traces/:id', {
    schema: { summary: 'One trace, exactly as stored (contract section 3)', params: z.object({ id: z.string() }), response: { 200: TraceSchema, ...errors } },
    preHandler: operator,
  }, async (request) => {
    const stored = await ctx.runtime().store.get(request.params.id);
    if (stored === null) throw new CitetraceError('NOT_FOUND', `no trace ${request.params.id}`);
    return payloadOf(stored);
  });

  api.get('/v1/traces', {
    schema: {
      summary: 'Traces, newest first, filtered by outcome, reason, cited source and date; page with `before`',
      querystring: TraceListQuerySchema,
      response: { 200: z.object({ traces: z.array(TraceSummarySchema), next_before: z.number().nullable() }), ...errors },
    },
    preHandler: operator,
  }, async (request) => {
    const q = request.query;
    const rows = await ctx.runtime().store.list({
      limit: q.limit,
      ...(q.outcome ? { outcome: q.outcome } : {}),
      ...(q.reason ? { reason: q.reason } : {}),
      ...(q.source ? { source: q.source } : {}),
      ...(q.from ? { from: q.from } : {}),
      ...(q.to ? { to: q.to } : {}),
      ...(q.before ? { before: q.before } : {}),
    });
    return {
      traces: rows.map((row) => ({
        trace_id: row.columns.trace_id ?? '',
        created_at: row.columns.created_at ?? '',
        role: row.columns.role ?? '',
        outcome: OutcomeSchema.parse(row.columns.outcome),
        reason: ReasonSchema.nullable().parse(row.columns.reason),
        query: listedQuery(row),
        cited_sources: row.purged ? [] : [...new Set(row.trace.citations.map((c) => c.source_id as string))],
      })),
      next_before: rows.length === q.limit ? (rows.at(-1)?.seq ?? null) : null,
    };
  });

  api.post('/v1/traces/:id/verify', {
    schema: {
      summary: 'Re-check one stored trace end to end (contract section 6)',
      params: z.object({ id: z.string() }),
      response: { 200: z.object({ trace_id: z.string(), ok: z.boolean(), problems: z.array(z.string()) }), ...errors },
    },
    preHandler: operator,
  }, async (request) => {
    const rt = ctx.runtime();
    if ((await rt.store.get(request.params.id)) === null) throw new CitetraceError('NOT_FOUND', `no trace ${request.params.id}`);
    const report = await verifyTraces({ store: rt.store, index: rt.index, dataDir: ctx.dataDir, traceId: request.params.id });
    const problems = findingsOf(report);
    return { trace_id: request.params.id, ok: problems.length === 0, problems };
  });

  api.get('/v1/sources', {
    schema: { summary: 'Sources with every revision, status, owner, review_by and the stale flag', response: { 200: z.object({ sources: z.array(SourceSchema) }), ...errors } },
    preHandler: operator,
  }, () => ({ sources: describeSources(ctx.runtime().index, ctx.today()) }));

  api.get(
    '/healthz',
    {
      schema: {
        response: {
          200: z.object({
            status: z.literal('ok'),
            index_snapshot: z.string(),
            index: z.object({
              state: z.enum(['current', 'stale']),
              commit: z.number().int(),
              error: z.string().nullable(),
              checked_at: z.string().nullable(),
            }),
            generator: z.object({ kind: z.enum(GENERATOR_KINDS), id: z.string(), note: z.string().nullable() }),
          }),
        },
      },
    },
    () => {
      const runtime = ctx.runtime();
      const index = ctx.indexStatus();
      return {
        status: 'ok' as const,
        index_snapshot: runtime.index.snapshotId,
        index: { state: index.state, commit: runtime.index.manifest.seq, error: index.error, checked_at: index.checkedAt },
        generator: runtime.generation,
      };
    },
  );

  api.get('/metrics', { preHandler: operator, schema: { summary: 'Prometheus metrics', hide: false } }, async (_request, reply) => {
    await reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
}
