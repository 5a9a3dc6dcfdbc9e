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

/** A value as the writer reads it: what its `toJSON` gives, when it has one. */
const unwrapped = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
/** A value the writer leaves out of an object (and writes as null in an array). */
const dropped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function write(value: unknown, inArray: boolean): string | undefined {
  const v = unwrapped(value);
  if (dropped(v)) return inArray ? 'null' : undefined;
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

/** Whether every object in a parsed JSON value lists its keys in canonical order (`keyOrder`; index keys always come first, by number). */
function keysInOrder(raw: unknown): boolean {
  if (raw === null || typeof raw !== 'object') return true;
  if (Array.isArray(raw)) return raw.every(keysInOrder);
  let previous: string | null = null;
  for (const [key, value] of Object.entries(raw)) {
    if (!isIndexKey(key)) {
      if (previous !== null && !(previous < key)) return false;
      previous = key;
    }
    if (!keysInOrder(value)) return false;
  }
  return true;
}

/** Whether `value` is written as `raw` (a parsed JSON value) is: the same keys and values, members the writer drops left out. */
function writtenAs(raw: unknown, value: unknown): boolean {
  const v = unwrapped(value);
  if (v === null || typeof v !== 'object') return typeof v === 'number' && !Number.isFinite(v) ? raw === null : v === raw;
  if (raw === null || typeof raw !== 'object') return false;
  if (Array.isArray(v)) {
    return Array.isArray(raw) && raw.length === v.length && v.every((item: unknown, i) => (dropped(unwrapped(item)) ? raw[i] === null : writtenAs(raw[i], item)));
  }
  if (Array.isArray(raw)) return false;
  const object = raw as Record<string, unknown>;
  let kept = 0;
  for (const [key, member] of Object.entries(v)) {
    if (dropped(unwrapped(member))) continue;
    kept += 1;
    if (!Object.hasOwn(object, key) || !writtenAs(object[key], member)) return false;
  }
  return kept === Object.keys(object).length;
}

/**
 * `canonicalJson(value) === body`, where `raw` is `JSON.parse(body)` and `value` what a schema made
 * of it, without writing the canonical form (verify asks it of every record): the body is its own
 * minimal form, its keys are in canonical order at every level, and `value` holds exactly what `raw` does.
 */
export function isCanonicalOf(body: string, raw: unknown, value: unknown): boolean {
  return JSON.stringify(raw) === body && keysInOrder(raw) && writtenAs(raw, value);
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
