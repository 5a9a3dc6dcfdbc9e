import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { CitetraceError, ERROR_CODES } from '../domain/index.js';

/** RFC 9457 problem details; every HTTP error leaves through here. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Content too large',
  422: 'Unprocessable content',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

export function problem(status: number, detail: string, code = 'about:blank'): Problem {
  return { type: code === 'about:blank' ? code : `https://citetrace.dev/problems/${code.toLowerCase()}`, title: TITLES[status] ?? STATUS_CODES[status] ?? 'Error', status, detail };
}

export function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  return reply.code(p.status).type('application/problem+json').send(p);
}

/** Map any thrown error to a problem: our codes by the one error table, validation to 400, the rest to 500 without internals. */
export function problemOf(error: unknown): Problem {
  if (error instanceof CitetraceError) return problem(ERROR_CODES[error.code].http, error.message, error.code);
  const e = error as { statusCode?: number; validation?: unknown; message?: string; code?: string };
  if (e.validation !== undefined) return problem(400, e.message ?? 'invalid request', 'BAD_INPUT');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return problem(e.statusCode, e.message ?? 'bad request');
  return problem(500, 'internal error; the incident is logged', 'INTERNAL');
}
