import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { checkpointingOf } from '../src/main.js';
import { bodyDigest, canonicalJson, chainHash, checkpointSignatureValid, createSqliteTraceStore, GENESIS_HASH, readCheckpoints, signCheckpoint, withCheckpoints, writeCheckpoint, type Checkpoint } from '../src/trace/index.js';
import { demoRuntime, runBin, tempDir, testConfig } from './helpers.js';

/** Signed checkpoints (issue 17): Ed25519 over the chain head, purges and index commit; `verify --public-key` and `--against`. */

interface KeyFiles {
  readonly privateKey: KeyObject;
  readonly privateFile: string;
  readonly publicFile: string;
}

async function keyPair(type: 'ed25519' | 'rsa' = 'ed25519'): Promise<KeyFiles> {
  const dir = await tempDir('citetrace-keys-');
  const { privateKey, publicKey } = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  const privateFile = path.join(dir, 'checkpoint.key');
  const publicFile = path.join(dir, 'checkpoint.pub');
  await writeFile(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKey, privateFile, publicFile };
}

const checkpointing = (file: string, privateKey: KeyObject, every = 3) => ({ privateKey, file, every, indexDigest: () => Promise.resolve(null), clock: () => new Date('2026-12-02T12:00:00.000Z') });

describe('checkpoints', () => {
  it('are written every N traces and on close, signed, and any changed field breaks the signature', async () => {
    const { privateKey } = await keyPair();
    const dir = await tempDir();
    const file = path.join(dir, 'checkpoints.jsonl');
    const store = withCheckpoints(createSqliteTraceStore({ file: path.join(dir, 'traces.sqlite') }), checkpointing(file, privateKey));
    for (let i = 0; i < 7; i += 1) await store.append(sampleTrace());
    const head = await store.head();
    await store.close();
    const lines = await readCheckpoints(file);
    const checkpoints = lines.map((l) => ('checkpoint' in l ? l.checkpoint : null));
    expect(checkpoints.map((c) => c?.seq)).toEqual([3, 6, 7]);
    expect(checkpoints[2]).toMatchObject({ head: head?.hash, purges: 0, index: null, key_id: expect.stringMatching(/^ed25519:[0-9a-f]{16}$/u) as string });
    const last = checkpoints[2]!;
    expect(checkpointSignatureValid(last, privateKey)).toBe(true);
    for (const forged of [{ seq: 6 }, { head: GENESIS_HASH }, { purges: 1 }, { at: '2026-12-03T12:00:00.000Z' }]) {
      expect(checkpointSignatureValid({ ...last, ...forged }, privateKey)).toBe(false);
    }
  });

  it('costs well under a millisecond of CPU to sign (bench/checkpoint.ts measures wall time too)', async () => {
    const { privateKey } = await keyPair();
    const body = { format: 1 as const, seq: 1, head: GENESIS_HASH, purges: 0, purges_digest: GENESIS_HASH, index: null, at: '2026-12-02T12:00:00.000Z' };
    // CPU time, not wall time: on a shared 2-core machine other work stretches wall time, not what signing itself costs.
    const started = process.cpuUsage();
    for (let i = 0; i < 500; i += 1) signCheckpoint(body, privateKey);
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000 / 500).toBeLessThan(1);
  });
});

describe('verify --public-key and --against (CLI)', () => {
  let pristine: string;
  let keys: KeyFiles;
  let env: (dir: string) => Record<string, string>;

  beforeAll(async () => {
    keys = await keyPair();
    const { runtime, dataDir } = await demoRuntime();
    const signing = checkpointingOf(testConfig(dataDir), keys.privateKey);
    await runtime.store.purge({ before: '2026-01-01T00:00:00.000Z', now: new Date('2026-12-02T11:00:00.000Z') });
    for (const question of ['How much is the no-show fee?', 'What are your hours?']) await runtime.assistant.ask({ question, role: 'patient' });
    await writeCheckpoint(runtime.store, signing);
    for (const question of ['Until what time can I get blood drawn at the Harbor lab?', 'I think I am having a stroke']) await runtime.assistant.ask({ question, role: 'patient' });
    await writeCheckpoint(runtime.store, signing);
    await runtime.close();
    pristine = dataDir;
    env = (dir) => ({ CITETRACE_DATA: dir });
  });

  async function copy(): Promise<string> {
    const dir = path.join(await tempDir(), 'data');
    await cp(pristine, dir, { recursive: true });
    return dir;
  }

  /** Rewrite rows behind the triggers, then put them back as they were. */
  function tamper(dir: string, work: (db: Database.Database) => void): void {
    const db = new Database(path.join(dir, 'traces.sqlite'));
    const triggers = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all();
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    work(db);
    for (const t of triggers) db.exec(t.sql);
    db.close();
  }

  const verify = (dir: string, ...args: string[]) => runBin(['verify', ...args], env(dir));

  it('passes an intact store against its checkpoints, a kept head and a file of kept checkpoints', async () => {
    const dir = await copy();
    expect((await verify(dir, '--public-key', keys.publicFile)).code).toBe(0);
    const head = (await runBin(['chain', 'head'], env(dir))).stdout.trim();
    expect((await verify(dir, '--against', head)).code).toBe(0);
    expect((await verify(dir, '--against', path.join(dir, 'checkpoints.jsonl'), '--public-key', keys.publicFile)).code).toBe(0);
  });

  it('catches a whole chain recomputed after an edit, which the keyless chain cannot', async () => {
    const dir = await copy();
    const head = (await runBin(['chain', 'head'], env(dir))).stdout.trim();
    tamper(dir, (db) => {
      const rows = db.prepare<[], { seq: number; body: string }>('SELECT seq, body FROM traces ORDER BY seq').all();
      let previous = GENESIS_HASH;
      for (const row of rows) {
        const trace = JSON.parse(row.body) as { query: string };
        const body = row.seq === 1 ? canonicalJson({ ...trace, query: 'a question nobody asked' }) : row.body;
        const digest = bodyDigest(body);
        previous = chainHash(previous, digest);
        db.prepare('UPDATE traces SET body = ?, body_sha256 = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(body, digest, row.seq === 1 ? GENESIS_HASH : '', previous, row.seq);
      }
      // prev_hash of every row follows its predecessor's new hash.
      db.exec('UPDATE traces SET prev_hash = (SELECT t.hash FROM traces t WHERE t.seq = traces.seq - 1) WHERE seq > 1');
    });
    expect((await verify(dir, '--all')).code).toBe(0);
    const signed = await verify(dir, '--public-key', keys.publicFile);
    expect(signed.code).toBe(1);
    expect(signed.stdout).toMatch(/FAIL store: checkpoint line 1 \(#2, .*\): trace #2 hashes to sha256:[0-9a-f]{64}, the kept head says sha256:[0-9a-f]{64}/u);
    const kept = await verify(dir, '--against', head);
    expect(kept.code).toBe(1);
    expect(kept.stdout).toMatch(/FAIL store: kept head #4: trace #4 hashes to/u);
  });

  it('catches the newest traces cut off the chain', async () => {
    const dir = await copy();
    tamper(dir, (db) => db.exec('DELETE FROM traces WHERE seq = 4'));
    const result = await verify(dir, '--public-key', keys.publicFile);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/checkpoint line 2 \(#4, .*\): the chain ends at #3, before the kept head #4 \(traces were removed\)/u);
  });

  // Minor audit finding: a trace store that is gone is a finding (exit 1) when checkpoints show it held traces, not bad input.
  it('names a deleted trace store as a finding when the checkpoints show traces', async () => {
    const dir = await copy();
    await rm(path.join(dir, 'traces.sqlite'));
    for (const args of [['--public-key', keys.publicFile], ['--all']]) {
      const result = await verify(dir, ...args);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toMatch(/FAIL store: no trace store at .*traces\.sqlite, but checkpoint line 2 \(#4, .*\) shows 4 trace\(s\) \(the store was deleted or moved\)/u);
    }
    await rm(path.join(dir, 'checkpoints.jsonl'));
    expect((await verify(dir, '--all')).code).toBe(2);
  });

  it('catches a purge record changed after it was signed', async () => {
    const dir = await copy();
    tamper(dir, (db) => db.exec("UPDATE purges SET before = '2026-12-03T00:00:00.000Z'"));
    const result = await verify(dir, '--public-key', keys.publicFile);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/checkpoint line 1 \(#2, .*\): the first 1 purge record\(s\) differ from those signed/u);
  });

  it('catches an index commit changed after it was signed', async () => {
    const dir = await copy();
    const commit = path.join(dir, 'commits', '00000001.json');
    await writeFile(commit, (await readFile(commit, 'utf8')).replace('"format": 1', '"format":  1'));
    const result = await verify(dir, '--public-key', keys.publicFile);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/index commit 1 differs from the one signed, or is gone/u);
  });

  it('reports forged checkpoints, a wrong public key and a head from another store as findings', async () => {
    const dir = await copy();
    const file = path.join(dir, 'checkpoints.jsonl');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const forged = { ...(JSON.parse(lines[1]!) as Checkpoint), seq: 3 };
    await writeFile(file, `${lines.join('\n')}\n${JSON.stringify(forged)}\nnot json\n`);
    const result = await verify(dir, '--public-key', keys.publicFile);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/checkpoint line 3 \(#3, .*\): signature does not verify with the given public key/u);
    expect(result.stdout).toMatch(/checkpoint line 4: not JSON/u);
    const other = await keyPair();
    const wrongKey = await verify(await copy(), '--public-key', other.publicFile);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toMatch(/signature does not verify with the given public key \(signed by ed25519:[0-9a-f]{16}, given ed25519:[0-9a-f]{16}\)/u);
    const foreign = await verify(await copy(), '--against', `2 sha256:${'ab'.repeat(32)}`);
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toMatch(/kept head #2: trace #2 hashes to .*or the head is from another store/u);
  });

  it('refuses a missing or unusable key with exit 2 and one line, and a signing key inside the data folder', async () => {
    const dir = await copy();
    const rsa = await keyPair('rsa');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['verify', '--public-key', path.join(dir, 'nope.pem')], {}, /^citetrace: cannot read public key .*nope\.pem: /u],
      [['verify', '--public-key', path.join(dir, 'manifest.json')], {}, /is not a PEM public key$/u],
      [['verify', '--public-key', rsa.publicFile], {}, /is a rsa key, not Ed25519$/u],
      [['verify', '--against', 'nonsense'], {}, /^citetrace: --against nonsense: neither a head \(SEQ sha256:HEX\) nor a readable file$/u],
      [['checkpoint'], {}, /^citetrace: no signing key: set CITETRACE_SIGNING_KEY_FILE/u],
      [['checkpoint'], { CITETRACE_SIGNING_KEY_FILE: path.join(dir, 'checkpoint.key') }, /lies inside the data folder/u],
      [['checkpoint'], { CITETRACE_SIGNING_KEY_FILE: rsa.privateFile }, /is a rsa key, not Ed25519$/u],
    ];
    for (const [args, extra, message] of cases) {
      const result = await runBin(args, { ...env(dir), ...extra });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(message);
    }
  });

  it('a purge through the checkpointing store signs a checkpoint naming it; a purge made without the key is named', async () => {
    const signed = await copy();
    const file = path.join(signed, 'traces.sqlite');
    const store = withCheckpoints(createSqliteTraceStore({ file }), checkpointingOf(testConfig(signed), keys.privateKey));
    expect(await store.purge({ before: '2026-12-03T00:00:00.000Z', now: new Date('2026-12-04T00:00:00.000Z') })).toEqual({ purged: 4 });
    await store.close();
    const lines = await readCheckpoints(path.join(signed, 'checkpoints.jsonl'));
    expect(lines.map((l) => ('checkpoint' in l ? l.checkpoint.purge : null))).toEqual([undefined, undefined, 2]);
    const ok = await verify(signed, '--public-key', keys.publicFile);
    expect(ok.stdout).not.toMatch(/FAIL/u);
    expect(ok.code).toBe(0);

    // The same purge through a store that holds no key, as SQL or the purge function called with a stolen password would make it.
    const forged = await copy();
    const bare = createSqliteTraceStore({ file: path.join(forged, 'traces.sqlite') });
    await bare.purge({ before: '2026-12-03T00:00:00.000Z', now: new Date('2026-12-04T00:00:00.000Z') });
    await bare.close();
    expect((await verify(forged, '--all')).code).toBe(0);
    const result = await verify(forged, '--public-key', keys.publicFile);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAIL store: purge #2 at 2026-12-04T00:00:00.000Z: no checkpoint was signed when it was made (made without the checkpoint key, or forged)');
  });

  it('`citetrace checkpoint` signs the head now and prints it', async () => {
    const dir = await copy();
    const result = await runBin(['checkpoint'], { ...env(dir), CITETRACE_SIGNING_KEY_FILE: keys.privateFile });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ seq: 4, purges: 1, index: expect.stringMatching(/^1:sha256:/u) as string });
    expect((await verify(dir, '--public-key', keys.publicFile)).code).toBe(0);
  });
});
