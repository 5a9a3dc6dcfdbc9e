import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CitetraceError, wrapError } from '../domain/index.js';
import { commitDigest, type IndexAt } from '../index-store/index.js';
import { checkpointSignatureValid, keyIdOf, parseCheckpointLine, purgesDigest, type Checkpoint, type CheckpointLine, type PurgeRecord, type TraceStore } from '../trace/index.js';
import type { Anchor } from './verify.js';

/** What signed checkpoints contribute to verification: heads the chain walk must reach, and findings about the checkpoints themselves. */
export interface CheckpointEvidence {
  readonly anchors: readonly Anchor[];
  readonly findings: readonly string[];
}

/** An Ed25519 public key (PEM) from a file; anything else is bad input, one line. */
export async function readPublicKey(file: string): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    throw wrapError('BAD_INPUT', `cannot read public key ${file}`, error);
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new CitetraceError('BAD_INPUT', `public key ${file} is not a PEM public key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new CitetraceError('BAD_INPUT', `public key ${file} is a ${key.asymmetricKeyType ?? 'symmetric'} key, not Ed25519`);
  return key;
}

const labelOf = (line: number, c: Checkpoint): string => `checkpoint line ${line} (#${c.seq}, ${c.at})`;

/**
 * Every checkpoint line: malformed lines and bad signatures are findings; a validly signed
 * checkpoint becomes an anchor for the chain walk, and its purge digest and index commit digest
 * are compared with what the store and the commit log hold now.
 */
export async function checkpointEvidence(options: {
  readonly lines: readonly CheckpointLine[];
  readonly file: string;
  readonly publicKey: KeyObject;
  readonly store: TraceStore;
  readonly dataDir: IndexAt;
}): Promise<CheckpointEvidence> {
  const { lines, publicKey } = options;
  if (lines.length === 0) return { anchors: [], findings: [`checkpoints: none in ${options.file}`] };
  let purges: readonly PurgeRecord[] | null = null;
  const findings: string[] = [];
  const anchors: Anchor[] = [];
  const valid: Checkpoint[] = [];
  for (const entry of lines) {
    if ('problem' in entry) {
      findings.push(`checkpoint line ${entry.line}: ${entry.problem}`);
      continue;
    }
    const c = entry.checkpoint;
    const label = labelOf(entry.line, c);
    if (!checkpointSignatureValid(c, publicKey)) {
      findings.push(`${label}: signature does not verify with the given public key (signed by ${c.key_id}, given ${keyIdOf(publicKey)})`);
      continue;
    }
    anchors.push({ label, seq: c.seq, hash: c.head });
    valid.push(c);
    purges ??= await options.store.purges().catch((error: unknown) => {
      findings.push(`purges: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    });
    if (purges.length < c.purges) findings.push(`${label}: signed ${c.purges} purge record(s), the store holds ${purges.length}`);
    else if (purgesDigest(purges.slice(0, c.purges)) !== c.purges_digest) findings.push(`${label}: the first ${c.purges} purge record(s) differ from those signed`);
    if (c.index !== null) {
      const seq = Number(c.index.split(':')[0]);
      if ((await commitDigest(options.dataDir, seq).catch(() => null)) !== c.index) findings.push(`${label}: index commit ${seq} differs from the one signed, or is gone`);
    }
  }
  return { anchors, findings: [...findings, ...unsignedPurges(valid, purges ?? [])] };
}

/**
 * Purges recorded after checkpoints began must each have the checkpoint the purge path signs
 * right after it (`purge`: its id); those before the first checkpoint are covered by its
 * signature. A purge record without one was made behind citetrace's back (SQL, or the purge
 * function called directly with a stolen service password): a forged purge.
 */
function unsignedPurges(valid: readonly Checkpoint[], purges: readonly PurgeRecord[]): string[] {
  const first = valid[0];
  if (first === undefined) return [];
  const attested = new Map(valid.flatMap((c) => (c.purge === undefined ? [] : [[c.purge, c] as const])));
  return purges.flatMap((p, i) => {
    if (i < first.purges) return [];
    const c = attested.get(p.id);
    if (c === undefined) return [`purge #${p.id} at ${p.purgedAt}: no checkpoint was signed when it was made (made without the checkpoint key, or forged)`];
    return c.purges > i ? [] : [`purge #${p.id} at ${p.purgedAt}: the checkpoint signed for it does not cover it`];
  });
}

const HEAD = /^(\d+) (sha256:[0-9a-f]{64})$/u;

/**
 * `verify --against`: a head as `chain head` prints it (`SEQ sha256:HEX`), or a file of such
 * heads and/or checkpoint lines kept outside the system. A checkpoint's signature is checked when
 * a public key is given. Anything else is bad input, one line.
 */
export async function keptHeads(value: string, publicKey: KeyObject | null): Promise<CheckpointEvidence> {
  const head = HEAD.exec(value.trim());
  if (head !== null) return { anchors: [{ label: `kept head #${head[1]}`, seq: Number(head[1]), hash: head[2] ?? '' }], findings: [] };
  let text: string;
  try {
    text = await readFile(value, 'utf8');
  } catch {
    throw new CitetraceError('BAD_INPUT', `--against ${value}: neither a head (SEQ sha256:HEX) nor a readable file`);
  }
  const anchors: Anchor[] = [];
  const findings: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const kept = HEAD.exec(line);
    if (kept !== null) {
      anchors.push({ label: `kept head #${kept[1]} (${value} line ${i + 1})`, seq: Number(kept[1]), hash: kept[2] ?? '' });
      continue;
    }
    const parsed = parseCheckpointLine(line, i + 1);
    if ('problem' in parsed) throw new CitetraceError('BAD_INPUT', `--against ${value} line ${i + 1}: neither a head (SEQ sha256:HEX) nor a checkpoint`);
    const c = parsed.checkpoint;
    const label = `kept ${labelOf(i + 1, c)} of ${value}`;
    if (publicKey !== null && !checkpointSignatureValid(c, publicKey)) findings.push(`${label}: signature does not verify with the given public key`);
    else anchors.push({ label, seq: c.seq, hash: c.head });
  }
  return { anchors, findings };
}
