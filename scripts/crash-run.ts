import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bodyDigest, chainHash, checkpointSignatureValid, GENESIS_HASH, purgesDigest, readCheckpoints, type TraceStore } from '../src/trace/index.js';

const WRITER = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));

export interface CrashResult {
  readonly cycles: number;
  readonly acknowledged: number;
  readonly stored: number;
  readonly missing: readonly string[];
  readonly chainProblems: readonly string[];
  /** Signed checkpoints the writers appended (with `signing`), and what is wrong with any of them. */
  readonly checkpoints: number;
  readonly checkpointProblems: readonly string[];
}

/**
 * Keep `writers` processes appending while killing one with SIGKILL every few milliseconds and
 * starting a new one, for `cycles` kills; then check that every acknowledged trace is stored and
 * that the stored chain is one unbroken line. With `signing`, the writers also sign a checkpoint
 * every `every` traces (an Ed25519 key made for the run, the checkpoint file in `dir`), and every
 * checkpoint line must parse, carry a valid signature and name a head the chain still has.
 */
export async function crashRun(options: {
  readonly target: string;
  readonly schema?: string;
  readonly writers: number;
  readonly cycles: number;
  readonly open: () => Promise<TraceStore>;
  readonly signing?: { readonly dir: string; readonly every: number };
}): Promise<CrashResult> {
  const acknowledged = new Set<string>();
  const writing = new WeakSet<ChildProcess>();
  const keys = options.signing === undefined ? null : generateKeyPairSync('ed25519');
  const keyFile = options.signing === undefined ? '' : path.join(options.signing.dir, 'checkpoint.key');
  const checkpointFile = options.signing === undefined ? '' : path.join(options.signing.dir, 'checkpoints.jsonl');
  if (keys !== null) await writeFile(keyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const signingArgs = options.signing === undefined ? [] : [keyFile, checkpointFile, String(options.signing.every)];
  const start = (): ChildProcess => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, options.target, options.schema ?? '', ...signingArgs], { stdio: ['ignore', 'pipe', 'ignore'] });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') acknowledged.add(line);
      writing.add(child);
    });
    return child;
  };
  const exited = (child: ChildProcess): Promise<void> => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => {
      resolve();
    });
  });
  const children = Array.from({ length: options.writers }, start);
  await new Promise((r) => setTimeout(r, 1500));
  // A stalled store (no writer acknowledging anything) must end the run, not hang it.
  const deadline = Date.now() + 60_000 + options.cycles * 1_000;
  for (let cycle = 0; cycle < options.cycles; ) {
    if (Date.now() > deadline) throw new Error(`crash run stalled after ${cycle} of ${options.cycles} kills: no writer is acknowledging appends`);
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 40));
    // Kill only writers that are appending, so every kill can land mid-transaction.
    const candidates = children.map((c, i) => [c, i] as const).filter(([c]) => writing.has(c));
    const pick = candidates[Math.floor(Math.random() * candidates.length)];
    if (pick === undefined) continue;
    const [victim, i] = pick;
    cycle += 1;
    victim.kill('SIGKILL');
    await exited(victim);
    children[i] = start();
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exited));

  const store = await options.open();
  try {
    const missing: string[] = [];
    for (const id of acknowledged) if ((await store.get(id)) === null) missing.push(id);
    const chainProblems: string[] = [];
    let previous = GENESIS_HASH;
    let expected = 1;
    let stored = 0;
    const hashes = new Map<number, string>([[0, GENESIS_HASH]]);
    for (let after = 0; ; ) {
      const rows = await store.scan({ afterSeq: after, limit: 1000 });
      if (rows.length === 0) break;
      for (const row of rows) {
        if (row.seq !== expected) chainProblems.push(`#${row.seq}: expected seq ${expected}`);
        if (row.prevHash !== previous) chainProblems.push(`#${row.seq}: prev_hash does not link`);
        if (bodyDigest(row.body) !== row.bodySha256 || chainHash(row.prevHash, row.bodySha256) !== row.hash) chainProblems.push(`#${row.seq}: hash mismatch`);
        previous = row.hash;
        hashes.set(row.seq, row.hash);
        expected = row.seq + 1;
        after = row.seq;
        stored += 1;
      }
    }
    const checkpointProblems: string[] = [];
    const lines = keys === null ? [] : await readCheckpoints(checkpointFile);
    for (const entry of lines) {
      if ('problem' in entry) {
        checkpointProblems.push(`checkpoint line ${entry.line}: ${entry.problem}`);
        continue;
      }
      const c = entry.checkpoint;
      if (keys !== null && !checkpointSignatureValid(c, keys.publicKey)) checkpointProblems.push(`checkpoint line ${entry.line}: bad signature`);
      if (hashes.get(c.seq) !== c.head) checkpointProblems.push(`checkpoint line ${entry.line}: #${c.seq} is not the signed head`);
      if (c.purges !== 0 || c.purges_digest !== purgesDigest([])) checkpointProblems.push(`checkpoint line ${entry.line}: signs purges that never happened`);
    }
    return { cycles: options.cycles, acknowledged: acknowledged.size, stored, missing, chainProblems, checkpoints: lines.length, checkpointProblems };
  } finally {
    await store.close();
  }
}
