import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey, KeyRole, KeyStore } from '../auth/index.js';
import { problem, sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null;
  }
}

export const CONSOLE_COOKIE = 'citetrace_key';

/** The key from `Authorization: Bearer`, `X-API-Key`, or the console cookie. */
export function presentedKey(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  if (auth?.startsWith('Bearer ') === true) return auth.slice(7).trim();
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  return request.cookies[CONSOLE_COOKIE] ?? null;
}

/** A preHandler: 401 without a known key, 403 when the key's role is not among those allowed. */
export function requireRole(keys: KeyStore, allowed: readonly KeyRole[], onMissing?: (reply: FastifyReply) => FastifyReply) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const secret = presentedKey(request);
    const key = secret === null ? null : keys.lookup(secret);
    if (key === null) {
      await (onMissing ? onMissing(reply) : sendProblem(reply, problem(401, secret === null ? 'an API key is required' : 'unknown API key')));
      return;
    }
    if (!allowed.includes(key.role)) {
      await sendProblem(reply, problem(403, `a ${key.role} key may not use this route`));
      return;
    }
    request.apiKey = key;
  };
}
