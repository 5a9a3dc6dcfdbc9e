import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleTrace } from '../scripts/sample-trace.js';
import { TraceSchema, type Trace } from '../src/domain/index.js';
import { createSqliteTraceStore } from '../src/trace/index.js';
import { DEMO_CORPUS, runBin, snapshotFiles, tempDir } from './helpers.js';

describe('citetrace CLI end to end', () => {
  let dataDir: string;
  const env = (): Record<string, string> => ({ CITETRACE_DATA: dataDir });

  beforeAll(async () => {
    dataDir = await tempDir('citetrace-data-');
    expect((await runBin(['ingest', DEMO_CORPUS], env())).code).toBe(0);
  });

  it('ask --json prints a contract trace that traces show returns unchanged', async () => {
    const asked = await runBin(['ask', 'When is Eastside Clinic open?', '--as-of', '2026-12-02', '--json'], env());
    expect(asked.code).toBe(0);
    const trace = TraceSchema.parse(JSON.parse(asked.stdout));
    expect(trace.outcome).toBe('answer');
    expect(trace.as_of).toBe('2026-12-02');
    const shown = await runBin(['traces', 'show', trace.trace_id, '--json'], env());
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(asked.stdout));
    // The first characters of an id, as an operator copies them, name the same trace.
    const byPrefix = await runBin(['traces', 'show', trace.trace_id.slice(0, 8), '--json'], env());
    expect(JSON.parse(byPrefix.stdout)).toEqual(JSON.parse(asked.stdout));
    const listed = await runBin(['traces', 'list', '--outcome', 'answer'], env());
    expect(listed.stdout).toContain(trace.trace_id);
    const detail = await runBin(['traces', 'show', trace.trace_id], env());
    expect(detail.stdout).toMatch(/retrieved:\n {2}S1 #1 score/u);
    expect(detail.stdout).toMatch(/cited/u);
  });

  it('traces show refuses the first characters of more than one trace id with exit 2 and one line', async () => {
    const dir = await tempDir('citetrace-prefix-');
    const store = createSqliteTraceStore({ file: path.join(dir, 'traces.sqlite') });
    for (const n of [1, 2]) await store.append(sampleTrace({ trace_id: `abcd0000-0000-4000-8000-00000000000${n}` as Trace['trace_id'] }));
    await store.close();
    const shown = await runBin(['traces', 'show', 'abcd0000'], { CITETRACE_DATA: dir });
    expect(shown).toMatchObject({ code: 2, stdout: '' });
    expect(shown.stderr).toBe('citetrace: more than one trace id begins with abcd0000: give more of it\n');
    expect((await runBin(['traces', 'show', 'abcd0000-0000-4000-8000-000000000002', '--json'], { CITETRACE_DATA: dir })).code).toBe(0);
  });

  it('ask prints the answer with its sources; an abstention exits 0', async () => {
    const answered = await runBin(['ask', 'Until what time can I get blood drawn at the Harbor lab?'], env());
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/4 pm\. \[S\d\]/u);
    expect(answered.stdout).toMatch(/Sources:\n {2}\[S\d\] harbor-lab-hours, version 2026-05-04, revision sha256:/u);
    const abstained = await runBin(['ask', 'Can I pay my bill in bitcoin?'], env());
    expect(abstained.code).toBe(0);
    expect(abstained.stdout).toMatch(/outcome: abstain \(NO_SUPPORT\)/u);
  });

  it('a greeting is asked what it wants (clarify, NO_REQUEST), not sent to a crisis line', async () => {
    const hi = await runBin(['ask', 'hi!'], env());
    expect(hi.code).toBe(0);
    expect(hi.stdout).toMatch(/^What would you like to know about appointments or visiting Maple Valley Health\?/u);
    expect(hi.stdout).toMatch(/outcome: clarify \(NO_REQUEST\)/u);
    expect(hi.stdout).not.toMatch(/988/u);
  });

  const badInput: [string, string[], RegExp][] = [
    ['an empty question', ['ask', '  '], /the question is empty/u],
    // Refused while the models were still loading on the inference thread, this exited with a segmentation fault.
    ['a question of 15,000 characters', ['ask', 'a'.repeat(15_000)], /the question is 15000 characters; the limit is 10000/u],
    ['a question of 40,000 characters', ['ask', 'why '.repeat(10_000)], /the question is 39999 characters; the limit is 10000/u],
    ['watching a policy repository that does not exist', ['watch', '/nonexistent/policy-repo'], /policy repository \/nonexistent\/policy-repo is not a folder that exists/u],
    ['an unknown role', ['ask', 'hours?', '--role', 'admin'], /not a valid role/u],
    ['an impossible date', ['ask', 'hours?', '--as-of', '2026-02-30'], /YYYY-MM-DD/u],
    ['an unknown trace', ['traces', 'show', '00000000-0000-4000-8000-000000000000'], /no trace 00000000-0000-4000-8000-000000000000/u],
    ['a trace id no trace begins with', ['traces', 'show', 'ffff0000'], /no trace ffff0000/u],
    ['text no trace id can begin with', ['traces', 'show', 'no-such-trace'], /no-such-trace cannot begin a trace id/u],
    ['too short a trace id', ['traces', 'show', 'abc'], /at least 4 characters/u],
    ['an unknown command', ['frobnicate'], /unknown command/u],
  ];
  it.each(badInput)('rejects %s with exit 2 and one line, no stack trace', async (_name, args, message) => {
    const result = await runBin(args, env());
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('asking before any ingest is bad input with a hint', async () => {
    const result = await runBin(['ask', 'What are the Harbor lab hours?'], { CITETRACE_DATA: await tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/run `citetrace ingest DIR` first/u);
  });

  it('keys create, list and revoke: the list never shows a secret; a revoked id is gone, and revoking it again is exit 2', async () => {
    const created = await runBin(['keys', 'create', '--role', 'staff', '--label', 'front desk'], env());
    expect(created.code).toBe(0);
    const secret = created.stdout.trim();
    const id = /^ct_staff_([0-9a-f]+)_/u.exec(secret)?.[1] ?? '';
    const listed = await runBin(['keys', 'list'], env());
    expect(listed.stdout).toMatch(new RegExp(`^${id}\tstaff\tfront desk\t\\d{4}-\\d{2}-\\d{2}T`, 'mu'));
    expect(listed.stdout).not.toContain(secret);
    expect((await runBin(['keys', 'revoke', id], env())).stdout).toBe(`revoked ${id}\n`);
    expect((await runBin(['keys', 'list'], env())).stdout).not.toContain(id);
    const again = await runBin(['keys', 'revoke', id], env());
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(`citetrace: no key ${id}`);
  });

  it('prints the trace contract as JSON Schema', async () => {
    const result = await runBin(['schema'], env());
    const schema = JSON.parse(result.stdout) as { required: string[] };
    expect(schema.required).toEqual(expect.arrayContaining(['trace_id', 'retrieved', 'citations', 'config']));
  });

  describe('a trace store that does not exist (a mistyped CITETRACE_TRACES)', () => {
    const reads: [string, string[]][] = [
      ['traces list', ['traces', 'list']],
      ['traces show', ['traces', 'show', '00000000-0000-4000-8000-000000000000']],
      ['chain head', ['chain', 'head']],
      ['verify --all', ['verify', '--all']],
      ['purge', ['purge', '--older-than', '30d']],
    ];
    it.each(reads)('%s is refused with exit 2 and one line, and no empty store is created that would list or verify as nothing', async (_name, args) => {
      const typo = path.join(await tempDir(), 'traecs.sqlite');
      const result = await runBin(args, { ...env(), CITETRACE_TRACES: typo });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([`citetrace: no trace store at ${typo}`]);
      expect(existsSync(typo)).toBe(false);
    });
  });

  it('stops quietly when the reader closes the pipe (`citetrace schema | true`), without a stack trace', async () => {
    const { execFile } = await import('node:child_process');
    const bin = path.join(import.meta.dirname, '..', 'bin', 'citetrace.js');
    const result = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', `"${process.execPath}" "${bin}" schema | true; echo "exit \${PIPESTATUS[0]}"`], { env: { ...process.env, ...env() } }, (_error, stdout, stderr) => { resolve({ stdout, stderr }); });
    });
    expect(result.stdout.trim()).toBe('exit 0');
    expect(result.stderr).toBe('');
  });

  describe('a data folder that does not exist', () => {
    const reads: [string, string[]][] = [
      ['ask', ['ask', 'What are the Harbor lab hours?']],
      ['traces list', ['traces', 'list']],
      ['verify', ['verify', '--all']],
      ['serve', ['serve', '--port', '0']],
      ['keys create', ['keys', 'create', '--role', 'patient']],
      ['chain head', ['chain', 'head']],
    ];
    it.each(reads)('%s refuses a mistyped --data with exit 2, one line naming it, and creates nothing', async (_name, args) => {
      const typo = path.join(await tempDir(), 'idnex');
      const result = await runBin(['--data', typo, ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([`citetrace: data folder ${typo} (--data) does not exist; check the path, or add --init to create it`]);
      expect(existsSync(typo)).toBe(false);
    });

    it('CITETRACE_DATA is held to the same rule', async () => {
      const typo = path.join(await tempDir(), 'idnex');
      const result = await runBin(['traces', 'list'], { CITETRACE_DATA: typo });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([`citetrace: data folder ${typo} (CITETRACE_DATA) does not exist; check the path, or add --init to create it`]);
      expect(existsSync(typo)).toBe(false);
    });

    it('ingest into a named folder needs --init, and a refused ingest with --init creates nothing', async () => {
      const parent = await tempDir();
      const target = path.join(parent, 'data');
      const refused = await runBin(['--data', target, 'ingest', DEMO_CORPUS]);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain(target);
      const badRepo = await runBin(['--init', '--data', target, 'ingest', path.join(parent, 'no-such-repo')]);
      expect(badRepo.code).toBe(2);
      expect(await snapshotFiles(parent)).toEqual({});
      expect(existsSync(target)).toBe(false);
      const created = await runBin(['--init', '--data', target, 'ingest', DEMO_CORPUS]);
      expect(created.code).toBe(0);
      expect(existsSync(path.join(target, 'manifest.json'))).toBe(true);
    });

    it('a data folder that is a file is refused', async () => {
      const file = path.join(await tempDir(), 'cases.yaml');
      await import('node:fs/promises').then((fs) => fs.writeFile(file, 'x'));
      const result = await runBin(['--data', file, 'traces', 'list']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/is not a folder/u);
    });
  });
});
