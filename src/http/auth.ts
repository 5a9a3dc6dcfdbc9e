import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey, KeyRole, KeyStore } from '../auth/index.js';
import { problem, sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null;
  }
}

/** The console's cookie: a session token its sign-in issued (never the key), sent only to `/console`. */
export const CONSOLE_COOKIE = 'citetrace_session';
/** How long a console sign-in lasts. */
export const CONSOLE_SESSION_MS = 8 * 60 * 60 * 1000;

/** The key from `Authorization: Bearer` or `X-API-Key`. */
function headerKey(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  if (auth?.startsWith('Bearer ') === true) return auth.slice(7).trim();
  const header = request.headers['x-api-key'];
  return typeof header === 'string' ? header.trim() : null;
}

/** What a request presents to be known by (its key, or its console session token): rate limits count per secret. */
export const presentedSecret = (request: FastifyRequest): string | null => headerKey(request) ?? request.cookies[CONSOLE_COOKIE] ?? null;

/** The key a request presents: one in its headers, else (console routes) the one behind its open session. */
function presentedKey(keys: KeyStore, request: FastifyRequest, sessions: boolean): { readonly presented: boolean; readonly key: ApiKey | null } {
  const secret = headerKey(request);
  if (secret !== null) return { presented: true, key: keys.lookup(secret) };
  const token = sessions ? request.cookies[CONSOLE_COOKIE] : undefined;
  return token === undefined ? { presented: false, key: null } : { presented: true, key: keys.session(token, new Date()) };
}

/**
 * A preHandler: 401 without a known key, 403 when the key's role is not among those allowed. With
 * `signIn` (the console's routes), the session cookie counts too, and a request without a known
 * key or open session is sent there.
 */
export function requireRole(keys: KeyStore, allowed: readonly KeyRole[], signIn?: (reply: FastifyReply) => FastifyReply) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { presented, key } = presentedKey(keys, request, signIn !== undefined);
    if (key === null) {
      await (signIn ? signIn(reply) : sendProblem(reply, problem(401, presented ? 'unknown API key' : 'an API key is required')));
      return;
    }
    if (!allowed.includes(key.role)) {
      await sendProblem(reply, problem(403, `a ${key.role} key may not use this route`));
      return;
    }
    request.apiKey = key;
  };
}
