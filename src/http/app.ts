import { createHash } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { KeyStore } from '../auth/index.js';
import { createAdmission, type AdmissionLimits } from './admission.js';
import { ASK_ROUTE, registerApi, sendOverloaded } from './api.js';
import { presentedSecret } from './auth.js';
import { registerConsole } from './console.js';
import type { ServiceContext } from './context.js';
import { problem, problemOf, sendProblem } from './problem.js';

export interface AppOptions {
  readonly context: ServiceContext;
  readonly keys: KeyStore;
  /** Requests per key (or per address without a key) per minute. */
  readonly rateLimitPerMinute: number;
  /** Questions answered at once and waiting; beyond them /v1/ask answers 503 with Retry-After. */
  readonly admission: AdmissionLimits;
}

/**
 * The HTTP service: JSON API under /v1 (zod schemas validate requests and serialize responses,
 * and generate /openapi.json), the operator console under /console, health and metrics.
 * Question text is never logged.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { context } = options;
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('apiKey', null);
  // Refuse a question when the service is full before anything else runs for it (cookies, rate
  // limit, body, key): the first hook, so refusing stays cheap under overload.
  const admission = createAdmission(options.admission);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url === ASK_ROUTE && admission.full()) return sendOverloaded(reply, admission);
    return undefined;
  });

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  await app.register(fastifyRateLimit, {
    global: true,
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    allowList: (request) => request.url === '/healthz',
    keyGenerator: (request) => {
      const key = presentedSecret(request);
      return key === null ? `ip:${request.ip}` : `key:${createHash('sha256').update(key).digest('hex')}`;
    },
    errorResponseBuilder: (_request, ctx) => ({ ...problem(429, `rate limit of ${ctx.max} requests per minute reached; retry in ${Math.ceil(ctx.ttl / 1000)} s`), statusCode: 429 }),
  });
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'citetrace', description: 'Appointment answers with a machine-checkable evidence path', version: '1' },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });

  app.setErrorHandler(async (error, _request, reply) => {
    // The rate limiter throws the problem its errorResponseBuilder built.
    const limited = error as { statusCode?: number; detail?: string };
    await sendProblem(reply, limited.statusCode === 429 ? problem(429, limited.detail ?? 'rate limit reached') : problemOf(error));
  });
  app.setNotFoundHandler(async (request, reply) => {
    await sendProblem(reply, problem(404, `no route ${request.method} ${request.url.split('?')[0] ?? ''}`));
  });
  app.addHook('onResponse', async (request, reply) => {
    context.metrics.observeRequest(request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });

  registerApi(app, context, options.keys, admission);
  registerConsole(app, context, options.keys);
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  await app.ready();
  return app;
}
