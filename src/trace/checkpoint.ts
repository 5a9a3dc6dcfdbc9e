import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { z } from 'zod';
import { wrapError } from '../domain/index.js';
import { bodyDigest, canonicalJson, GENESIS_HASH } from './canonical.js';
import type { PurgeRecord, TraceStore } from './store.js';

/**
 * A signed checkpoint (issue 17; Certificate Transparency's signed tree head, RFC 9162, is the
 * model): the chain head at a sequence number, a digest of the purge records so far, the digest
 * of the index commit in use, and the time, signed with an Ed25519 key the database never holds.
 * Anyone with the public key can then prove that nothing at or before `seq` changed since.
 */
export const CheckpointSchema = z.object({
  format: z.literal(1),
  /** The newest trace when signed (0: the chain was empty). */
  seq: z.number().int().nonnegative(),
  /** The chain hash of trace `seq`. */
  head: z.string(),
  /** Purge records so far, and sha256 of their canonical JSON in id order. */
  purges: z.number().int().nonnegative(),
  purges_digest: z.string(),
  /** `SEQ:sha256:...` of the index commit in use (its commit log file), or null without an index. */
  index: z.string().nullable(),
  at: z.iso.datetime(),
  /**
   * Set only by the purge path: this checkpoint was signed right after purge record `purge` was
   * made, so each purge carries a signature made when it happened. A purge recorded after
   * checkpoints began without one was not made by citetrace with the key (a forged purge).
   */
  purge: z.number().int().positive().optional(),
  /** Which key signed: `ed25519:` + the first 16 hex digits of sha256 over its public key (SPKI DER). */
  key_id: z.string(),
  /** Ed25519 over the canonical JSON of every other field, base64. */
  signature: z.string(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;
export type CheckpointBody = Omit<Checkpoint, 'key_id' | 'signature'>;

export function keyIdOf(key: KeyObject): string {
  const spki = (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });
  return `ed25519:${createHash('sha256').update(spki).digest('hex').slice(0, 16)}`;
}

const signedBytes = (checkpoint: CheckpointBody & { readonly key_id: string }): Buffer =>
  Buffer.from(canonicalJson({ ...checkpoint, signature: undefined }), 'utf8');

export function signCheckpoint(body: CheckpointBody, privateKey: KeyObject): Checkpoint {
  const unsigned = { ...body, key_id: keyIdOf(privateKey) };
  return { ...unsigned, signature: sign(null, signedBytes(unsigned), privateKey).toString('base64') };
}

export function checkpointSignatureValid(checkpoint: Checkpoint, publicKey: KeyObject): boolean {
  try {
    return verify(null, signedBytes(checkpoint), publicKey, Buffer.from(checkpoint.signature, 'base64'));
  } catch {
    return false;
  }
}

/** sha256 over the canonical JSON of purge records, in id order. */
export function purgesDigest(records: readonly PurgeRecord[]): string {
  return bodyDigest(canonicalJson(records));
}

/** A checkpoint file line: a checkpoint, or what is wrong with the line (a finding, never a crash). */
export type CheckpointLine = { readonly line: number; readonly checkpoint: Checkpoint } | { readonly line: number; readonly problem: string };

/** Checkpoints as appended, one JSON object a line; a missing file holds none. */
export async function readCheckpoints(file: string): Promise<readonly CheckpointLine[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw wrapError('BAD_INPUT', `cannot read checkpoints ${file}`, error);
  }
  return text
    .split('\n')
    .map((raw, i) => ({ raw, line: i + 1 }))
    .filter(({ raw }) => raw.trim() !== '')
    .map(({ raw, line }) => parseCheckpointLine(raw, line));
}

/** One line of a checkpoint file (or of a file of kept checkpoints). */
export function parseCheckpointLine(raw: string, line: number): CheckpointLine {
  let json: unknown;
  try {
    json = JSON.parse(raw) as unknown;
  } catch {
    return { line, problem: 'not JSON' };
  }
  const parsed = CheckpointSchema.safeParse(json);
  return parsed.success ? { line, checkpoint: parsed.data } : { line, problem: `not a checkpoint (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'})` };
}

async function appendDurably(file: string, line: string): Promise<void> {
  const handle = await open(file, 'a');
  try {
    await handle.write(`${line}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface Checkpointing {
  readonly privateKey: KeyObject;
  /** The checkpoint file (append-only JSON lines). */
  readonly file: string;
  /** A checkpoint after every this many traces. */
  readonly every: number;
  /** The digest of the index commit in use, or null. */
  readonly indexDigest: () => Promise<string | null>;
  readonly clock: () => Date;
}

/**
 * Sign the store's current head, append the checkpoint to the file and return it. `purge`: the
 * purge path's own checkpoint, attesting the purge record it just made (`request` of that purge).
 */
export async function writeCheckpoint(store: TraceStore, options: Checkpointing, purge?: { readonly before: string; readonly now: Date }): Promise<Checkpoint> {
  try {
    const [head, purges, index] = await Promise.all([store.head(), store.purges(), options.indexDigest()]);
    // The record this purge made: newest first, in case another purge committed since.
    const made = purge === undefined ? undefined : purges.findLast((p) => Date.parse(p.purgedAt) === purge.now.getTime() && Date.parse(p.before) === Date.parse(purge.before));
    if (purge !== undefined && made === undefined) throw new Error('the purge just made is not among the purge records');
    const checkpoint = signCheckpoint(
      {
        format: 1,
        seq: head?.seq ?? 0,
        head: head?.hash ?? GENESIS_HASH,
        purges: purges.length,
        purges_digest: purgesDigest(purges),
        index,
        at: options.clock().toISOString(),
        ...(made === undefined ? {} : { purge: made.id }),
      },
      options.privateKey,
    );
    await appendDurably(options.file, JSON.stringify(checkpoint));
    return checkpoint;
  } catch (error) {
    throw wrapError('STORE_FAILURE', `cannot write a checkpoint to ${options.file}`, error);
  }
}

/**
 * The store, writing a signed checkpoint after every `every`-th trace, right after every purge
 * (naming the purge record), and on close (shutdown) when traces were appended since.
 */
export function withCheckpoints(store: TraceStore, options: Checkpointing): TraceStore {
  let changed = false;
  return {
    ...store,
    async append(trace) {
      const stored = await store.append(trace);
      changed = stored.seq % options.every !== 0;
      if (!changed) await writeCheckpoint(store, options);
      return stored;
    },
    async purge(request) {
      const result = await store.purge(request);
      // Signed at once, naming the purge record: verify --public-key asks every purge for this.
      await writeCheckpoint(store, options, request);
      changed = false;
      return result;
    },
    async close() {
      try {
        if (changed) await writeCheckpoint(store, options);
      } finally {
        await store.close();
      }
    },
  };
}
