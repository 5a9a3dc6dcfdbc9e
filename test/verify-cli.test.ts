import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CitetraceError } from '../src/domain/index.js';
import { verifyIndex } from '../src/eval/index.js';
import { openPolicyIndex } from '../src/index-store/index.js';
import { demoRuntime, runBin, snapshotFiles, tempDir } from './helpers.js';

/**
 * `citetrace verify` as an auditor scripts it (issue 17): exit 0 only when intact, 1 with every
 * finding (text or --json), 2 with one line on bad input or an unreadable index; nothing written.
 * And the index's own evidence: content hashes, passages, metadata against the hashed front matter.
 */

const STAFF_ONLY = 'scheduling-desk-overrides';
let pristine: string;

beforeAll(async () => {
  const { runtime, dataDir } = await demoRuntime();
  for (const question of ['Until what time can I get blood drawn at the Harbor lab?', 'How much is the no-show fee?', 'What are your hours?']) {
    await runtime.assistant.ask({ question, role: 'patient' });
  }
  await runtime.close();
  pristine = dataDir;
});

async function copy(): Promise<string> {
  const dir = path.join(await tempDir(), 'data');
  await cp(pristine, dir, { recursive: true });
  return dir;
}

const verify = (dir: string, ...args: string[]) => runBin(['--data', dir, 'verify', ...args]);

/** What a data folder holds, without SQLite's -wal/-shm companions (a reader may create them empty). */
async function contents(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries(Object.entries(await snapshotFiles(dir)).filter(([file]) => !/-(wal|shm)$/u.test(file)));
}

/** Rewrite rows of an index table the way an attacker with the data folder would, and point the manifest (and its commit log entry) at the result. */
async function rewriteIndex(dir: string, table: 'revisions' | 'passages', where: string, valuesSql: Record<string, string>): Promise<void> {
  const db = await lancedb.connect(path.join(dir, 'lance'));
  const t = await db.openTable(table);
  await t.update({ where, valuesSql });
  const version = await t.version();
  t.close();
  db.close();
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { seq: number; tables: Record<string, number> };
  manifest.tables[table] = version;
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await writeFile(path.join(dir, 'manifest.json'), text);
  await writeFile(path.join(dir, 'commits', `${String(manifest.seq).padStart(8, '0')}.json`), text);
}

describe('citetrace verify (CLI)', () => {
  it('exits 0 on an intact store and index, as text and as JSON, and writes nothing', async () => {
    const dir = await copy();
    const before = await contents(dir);
    const text = await verify(dir, '--all', '--index');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/verified 3 trace\(s\): 3 ok, 0 failed; 0 purged .*; 0 store finding\(s\)\nverified index: \d+ revision\(s\), \d+ passage\(s\); 0 finding\(s\)\n$/u);
    const json = await verify(dir, '--all', '--index', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, findings: [], traces: { checked: 3, failed: [], store: [] }, index: { findings: [] } });
    expect(await contents(dir)).toEqual(before);
    // Minor audit finding: not even an empty -wal or -shm is left in the data folder.
    expect(Object.keys(await snapshotFiles(dir)).filter((file) => /-(wal|shm)$/u.test(file))).toEqual([]);
  });

  it.each([
    [[], 'give a trace id, --all or --index'],
    [['00000000-0000-4000-8000-000000000000', '--all'], 'give a trace id or --all (which --public-key and --against imply), not both'],
    [['nope'], 'nope is not a trace id (a UUID)'],
  ])('refuses %j with exit 2 and one line', async (args, message) => {
    const result = await verify(pristine, ...args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([`citetrace: ${message}`]);
  });

  it('counts a trace id the store does not hold as one checked trace that failed (it may have been removed), exit 1', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const result = await verify(pristine, id);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`FAIL ${id} (#0): no such trace in the store\n`);
    expect(result.stdout).toMatch(/verified 1 trace\(s\): 0 ok, 1 failed;/u);
  });

  it('exits 1 listing every finding of a tampered store, in text and JSON, and still writes nothing', async () => {
    const dir = await copy();
    const db = new Database(path.join(dir, 'traces.sqlite'));
    db.exec('DROP TRIGGER traces_no_update');
    db.prepare("UPDATE traces SET body = '{not json' WHERE seq = 1").run();
    db.prepare("UPDATE traces SET outcome = CASE outcome WHEN 'answer' THEN 'abstain' ELSE 'answer' END WHERE seq = 3").run();
    db.close();
    const before = await contents(dir);
    const text = await verify(dir, '--all');
    expect(text.code).toBe(1);
    expect(text.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^citetrace: verification failed: \d+ finding\(s\)$/u)]);
    expect(text.stdout).toMatch(/FAIL store: schema: trigger traces_no_update is missing/u);
    expect(text.stdout).toMatch(/\(#1\): record: body is not valid JSON/u);
    expect(text.stdout).toMatch(/\(#3\): record: column outcome differs from the hashed record/u);
    const json = await verify(dir, '--all', '--json');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; findings: string[]; traces: { failed: { seq: number }[]; store: string[] } };
    expect(report.ok).toBe(false);
    expect(report.findings).toHaveLength(Number(/(\d+) finding/u.exec(json.stderr)?.[1]));
    expect(report.traces.failed.map((f) => f.seq)).toEqual([1, 3]);
    // Minor audit finding: each finding about a trace names it, as the text output does.
    expect(report.findings).toContainEqual(expect.stringMatching(/^[0-9a-f-]{36} \(#3\): record: column outcome differs from the hashed record$/u));
    expect(report.traces.store).toHaveLength(1);
    expect(await contents(dir)).toEqual(before);
  });

  it('names damaged LanceDB manifests by their committed digests (exit 1, one line on stderr) instead of failing to open the index', async () => {
    const dir = await copy();
    const versions = path.join(dir, 'lance', 'revisions.lance', '_versions');
    const newest = (await readdir(versions)).filter((f) => f.endsWith('.manifest')).sort()[0]!;
    await writeFile(path.join(versions, newest), 'not a lance manifest');
    // LanceDB's namespace manifest too: its warning must not become a second line.
    const namespace = path.join(dir, 'lance', '__manifest', '_versions');
    const entry = (await readdir(namespace)).find((f) => f.endsWith('.manifest'))!;
    await writeFile(path.join(namespace, entry), 'damaged');
    // Both files are committed with their sha256: they are named before LanceDB is asked to read them.
    const result = await verify(dir, '--index');
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(['citetrace: verification failed: 3 finding(s)']);
    expect(result.stdout).toContain(`FAIL index: file lance/revisions.lance/_versions/${newest}: bytes differ from the digest recorded at commit`);
    expect(result.stdout).toContain(`FAIL index: file lance/__manifest/_versions/${entry}: bytes differ from the digest recorded at commit`);
    expect(result.stdout).toMatch(/FAIL index: the index was not opened, so no trace was checked against it/u);
  });

  it('names a damaged LanceDB data file with exit 1, where LanceDB\'s reader would panic, for --index and --all alike', async () => {
    const dir = await copy();
    const data = path.join(dir, 'lance', 'passages.lance', 'data');
    const file = path.join(data, (await readdir(data)).find((f) => f.endsWith('.lance'))!);
    const bytes = await readFile(file);
    for (let i = bytes.length - 200; i < bytes.length - 100; i += 1) bytes[i] = (bytes[i] ?? 0) ^ 0x5a;
    await writeFile(file, bytes);
    for (const args of [['--index'], ['--all'], ['--all', '--index', '--json']]) {
      const result = await verify(dir, ...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toEqual(['citetrace: verification failed: 2 finding(s)']);
      expect(result.stdout).toContain(`file lance/passages.lance/data/${path.basename(file)}: bytes differ from the digest recorded at commit`);
    }
  });
});

describe('verify --index', () => {
  it('names traces answered from an index commit whose record changed since', async () => {
    const dir = await copy();
    const commit = path.join(dir, 'commits', '00000001.json');
    const manifest = JSON.parse(await readFile(commit, 'utf8')) as { present: string[] };
    await writeFile(commit, JSON.stringify({ ...manifest, present: manifest.present.slice(1) }));
    const result = await verify(dir, '--all', '--index');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/: in force: index commit 1 is now 1:[0-9a-f]{16}, not the 1:[0-9a-f]{16} the trace was answered from/u);
    expect(result.stdout).toMatch(/FAIL index: manifest: differs from commit 1 in the commit log/u);
  });

  it('names a staff-only revision whose audience was widened in the index and the manifest', async () => {
    const dir = await copy();
    await rewriteIndex(dir, 'revisions', `source_id = '${STAFF_ONLY}'`, { audience: "['patient', 'staff']" });
    await rewriteIndex(dir, 'passages', `source_id = '${STAFF_ONLY}'`, { audience: "['patient', 'staff']" });
    const result = await verify(dir, '--index');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`FAIL index: revision sha256:[0-9a-f]{64} \\(\\S*staff/${STAFF_ONLY}\\.md\\): audience is \\["patient","staff"\\] but its hashed front matter says \\["staff"\\]`, 'u'));
    expect(result.stdout).toMatch(/FAIL index: passage sha256:[0-9a-f]{64}#\d+-\d+: audience is \["patient","staff"\] but its revision's hashed front matter says \["staff"\]/u);
  });

  it.each([
    ['a revision body', 'revisions', { body: "replace(body, 'the', 'teh')" }, /stored text hashes to sha256:[0-9a-f]{64}, not to its revision id/u],
    ['a revision status', 'revisions', { status: "'retired'" }, /status is "retired" but its hashed front matter says "approved"/u],
    ['an effective date', 'revisions', { effective_date: "'2020-01-01'" }, /effective_date is "2020-01-01" but its hashed front matter says/u],
    ['a passage text', 'passages', { text: "replace(text, 'the', 'teh')" }, /passage sha256:[0-9a-f]{64}#\d+-\d+: text differs from its revision between \d+ and \d+/u],
    ['a passage span', 'passages', { start: 'start + 1' }, /chunk id does not name its revision and span/u],
  ] as const)('names %s changed in the index', async (_name, table, values, finding) => {
    const dir = await copy();
    await rewriteIndex(dir, table, `source_id = '${STAFF_ONLY}'`, values);
    const index = await openPolicyIndex({ dataDir: dir });
    try {
      const report = await verifyIndex({ index, dataDir: dir });
      expect(report.findings.join('\n')).toMatch(finding);
    } finally {
      index.close();
    }
  });

  it('catches a flipped byte at 1,000 random offsets of the index files, as findings or one INDEX_CORRUPT error (property, fixed seed)', async () => {
    const files = Object.keys(await snapshotFiles(path.join(pristine, 'lance'))).map((f) => path.join('lance', f));
    // One copy, each flip put back after it is checked: a copy per flip would make 1,000 of them minutes of disk work.
    const dir = await copy();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: files.length - 1 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.integer({ min: 1, max: 255 }), async (which, at, mask) => {
        const file = path.join(dir, files[which]!);
        const original = await readFile(file);
        const bytes = Buffer.from(original);
        const offset = Math.floor(at * bytes.length);
        bytes[offset] = (bytes[offset] ?? 0) ^ mask;
        await writeFile(file, bytes);
        try {
          const index = await openPolicyIndex({ dataDir: dir });
          try {
            expect((await verifyIndex({ index, dataDir: dir })).findings.length).toBeGreaterThan(0);
          } finally {
            index.close();
          }
        } catch (error) {
          expect(error).toBeInstanceOf(CitetraceError);
          expect((error as CitetraceError).code).toBe('INDEX_CORRUPT');
          expect((error as Error).message.split('\n')).toHaveLength(1);
        } finally {
          await writeFile(file, original);
        }
      }),
      { seed: 17, numRuns: 1000 },
    );
    // Every flip was put back: the copy verifies clean again.
    const index = await openPolicyIndex({ dataDir: dir });
    try {
      expect((await verifyIndex({ index, dataDir: dir })).findings).toEqual([]);
    } finally {
      index.close();
    }
  }, 600_000);
});
