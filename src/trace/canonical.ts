import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: one byte sequence per value, for hashing. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export const GENESIS_HASH = `sha256:${'0'.repeat(64)}`;

export function bodyDigest(body: string): string {
  return `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}`;
}

/**
 * Hash-chain link: sha256 over the previous link and the digest of the trace's canonical JSON.
 * Chaining the digest (not the body) lets a retention purge drop a payload while every link
 * still verifies.
 */
export function chainHash(previous: string, digest: string): string {
  return `sha256:${createHash('sha256').update(previous).update('\n').update(digest).digest('hex')}`;
}
