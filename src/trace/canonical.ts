import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level: one byte sequence per value, for hashing. Byte for
 * byte `JSON.stringify` of each object rebuilt from its key-sorted entries, written directly:
 * rebuilding each object sorted for `JSON.stringify` was most of what verify spent per trace.
 */
export function canonicalJson(value: unknown): string {
  return write(value, false) as string;
}

/** An array index as a property key ("0", "42"): JavaScript objects list these first, in numeric order. */
const isIndexKey = (key: string): boolean => /^(?:0|[1-9]\d*)$/u.test(key) && Number(key) < 4_294_967_295;

/**
 * The order of the object the old code rebuilt from sorted entries: index keys first by number (an
 * object always lists them so), then the others by UTF-16 code units.
 */
function keyOrder(keys: string[]): string[] {
  keys.sort();
  if (!keys.some(isIndexKey)) return keys;
  return [...keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndexKey(k))];
}

function write(value: unknown, inArray: boolean): string | undefined {
  const v = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return inArray ? 'null' : undefined;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((item: unknown) => write(item, true)).join(',')}]`;
  const record = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of keyOrder(Object.keys(record))) {
    const written = write(record[key], false);
    if (written !== undefined) parts.push(`${JSON.stringify(key)}:${written}`);
  }
  return `{${parts.join(',')}}`;
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
