import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killUnderLoad, NO_SHOW_QUESTION as QUESTION, publishRevision, runCli, startCluster, until, type Cluster, type Instance } from '../../scripts/scale-cluster.js';
import { snapshotIdOf } from '../../src/index-store/index.js';
import { tempDir } from '../helpers.js';
import { testPostgresUrl } from '../postgres.js';

/**
 * Scale-out (issue 20), for real: s3rver as the object store, this run's PostgreSQL as the trace
 * store, one `citetrace watch` and three `citetrace serve` processes. The tests run in order on
 * one deployment.
 */

const AS_OF = '2026-12-02';

let cluster: Cluster;
let dir: string;

const operator = (): Record<string, string> => ({ authorization: `Bearer ${cluster.operatorKey}` });
const health = async (instance: Instance): Promise<{ index_snapshot: string; index: { state: string; commit: number; error: string | null } }> =>
  (await fetch(`${instance.url}/healthz`)).json() as Promise<{ index_snapshot: string; index: { state: string; commit: number; error: string | null } }>;

/** `citetrace verify` as an auditor would run it: its own data folder, the deployment's index and trace store. */
async function verify(args: readonly string[]): Promise<{ code: number | null; out: string; err: string }> {
  const auditor = await tempDir('citetrace-auditor-');
  const run = runCli(['verify', ...args], { ...cluster.env, CITETRACE_DATA: auditor });
  const code = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

beforeAll(async () => {
  dir = await tempDir('citetrace-scale-');
  cluster = await startCluster({ dir, postgresUrl: testPostgresUrl(), instances: 3 });
}, 240_000);

afterAll(async () => {
  await cluster?.close();
});

describe('three instances, one watcher, one object store, one PostgreSQL', () => {
  const oldTraces: { id: string; revision: string }[] = [];

  it('answers a policy commit picked up by the watcher with the new revision on every instance within 5 s', async () => {
    for (const instance of cluster.instances) {
      const { status, body } = await cluster.ask(instance, QUESTION, AS_OF);
      expect(status).toBe(200);
      const cited = body.citations.find((c) => c.source_id === 'cancellation-no-show');
      expect(cited?.version).toBe('2026-04-01');
      oldTraces.push({ id: body.trace_id, revision: cited?.revision ?? '' });
    }
    const { manifest: committed, answers } = await publishRevision(cluster, { version: '2026-12-01', fee: '$45', asOf: AS_OF });
    for (const [i, { body, delayMs }] of answers.entries()) {
      expect(delayMs).toBeLessThan(5000);
      expect(body.answer).toContain('$45 no-show fee');
      // The trace records the index commit it was answered from.
      const instance = cluster.instances[i] as Instance;
      const trace = (await (await fetch(`${instance.url}/v1/traces/${body.trace_id}`, { headers: operator() })).json()) as { config: { index_snapshot: string } };
      expect(trace.config.index_snapshot).toBe(snapshotIdOf(committed));
    }
    for (const instance of cluster.instances) expect((await health(instance)).index_snapshot).toBe(snapshotIdOf(committed));
  }, 150_000);

  it('resolves an old trace from any instance to its old text, and verifies every instance’s traces as one chain', async () => {
    for (const [i, old] of oldTraces.entries()) {
      const other = cluster.instances[(i + 1) % cluster.instances.length] as Instance;
      const trace = (await (await fetch(`${other.url}/v1/traces/${old.id}`, { headers: operator() })).json()) as { citations: { revision: string; text: string }[] };
      expect(trace.citations.some((c) => c.revision === old.revision && c.text.includes('$40 no-show fee'))).toBe(true);
      const verdict = (await (await fetch(`${other.url}/v1/traces/${old.id}/verify`, { method: 'POST', headers: operator() })).json()) as { ok: boolean; problems: string[] };
      expect(verdict).toMatchObject({ ok: true, problems: [] });
    }
    const audit = await verify(['--all', '--index']);
    expect(audit).toMatchObject({ code: 0, err: '' });
    expect(audit.out).toMatch(/verified \d+ trace\(s\): \d+ ok, 0 failed; 0 purged .*; 0 store finding\(s\)\nverified index: \d+ revision\(s\), \d+ passage\(s\); 0 finding\(s\)\n$/u);
  }, 120_000);

  it('loses no acknowledged trace when an instance is killed with SIGKILL under load', async () => {
    const { acknowledged, missing } = await killUnderLoad(cluster, { instance: 0, clients: 6, after: 12, asOf: AS_OF });
    expect(acknowledged).toBeGreaterThanOrEqual(12);
    expect(missing).toEqual([]);
    expect(await verify(['--all'])).toMatchObject({ code: 0, err: '' });
  }, 120_000);

  it('leaves no half-visible index version when the ingester is killed with SIGKILL mid-commit, and the next one commits', async () => {
    const before = await cluster.manifest();
    const files = before.files ?? {};
    // The watcher's first commit step after its table writes is the commit log entry: hold that
    // request, so the kill lands after every LanceDB file of the version is written and before
    // anything names it.
    const commitStep = cluster.watcherLink.holdNext('PUT', /\/commits\/\d+\.json$/u);
    await mkdir(path.join(cluster.corpus, 'bulk'), { recursive: true });
    for (let k = 0; k < 40; k += 1) {
      const body = Array.from({ length: 12 }, (_, p) => `## Topic ${p}\nBulk policy ${k} paragraph ${p}: the Harbor Clinic front desk keeps form ${k}-${p} for visitors.`).join('\n\n');
      await writeFile(
        path.join(cluster.corpus, 'bulk', `bulk-${k}.md`),
        `---\nsource_id: bulk-${k}\ntitle: Bulk policy ${k}\nstatus: approved\neffective_date: 2026-01-01\nversion: v1\nowner: ops\n---\n${body}\n`,
      );
    }
    await until(() => Promise.resolve(commitStep.arrived()), 120_000, () => `the watcher reaches its commit; the watcher's output ends: ${cluster.watcher?.stdout().slice(-1000) ?? '(no watcher)'} ${cluster.watcher?.stderr().slice(-1000) ?? ''}`);
    expect((await cluster.index.list('lance')).some((rel) => files[rel] === undefined)).toBe(true);
    const watcher = cluster.watcher;
    watcher?.child.kill('SIGKILL');
    await watcher?.exited;
    expect((await cluster.manifest()).seq).toBe(before.seq);
    for (const instance of cluster.instances) expect((await health(instance)).index).toMatchObject({ state: 'current', commit: before.seq });
    expect((await cluster.ask(cluster.instances[0] as Instance, QUESTION, AS_OF)).body.answer).toContain('$45');
    expect(await verify(['--all', '--index'])).toMatchObject({ code: 0, err: '' });
    // The killed watcher's connection ended, so the lease is free: a new watcher rolls the tables back and commits.
    await cluster.startWatcher();
    const next = await until(async () => {
      const manifest = await cluster.manifest();
      return manifest.seq > before.seq && manifest;
    }, 120_000, 'the new watcher commits');
    expect(next.present.length).toBe(before.present.length + 40);
    await until(async () => {
      const states = await Promise.all(cluster.instances.map(health));
      return states.every((s) => s.index.commit === next.seq);
    }, 10_000, 'every instance serves the new commit');
    expect(await verify(['--all', '--index'])).toMatchObject({ code: 0, err: '' });
  }, 240_000);

  it('never lets two ingesters write: a second one exits 2 with one line naming the holder', async () => {
    const seq = (await cluster.manifest()).seq;
    for (const command of ['ingest', 'watch']) {
      const second = runCli([command, cluster.corpus], { ...cluster.env, CITETRACE_DATA: await tempDir('citetrace-second-') });
      expect(await second.exited).toBe(2);
      expect(second.stderr()).toMatch(/^citetrace: the index s3:\/\/citetrace\/deployment is written by citetrace ingester pid \d+ on \S+ \(since [^)]+\): one ingester writes an index \(stop that one first\)\n$/u);
    }
    expect((await cluster.manifest()).seq).toBe(seq);
  }, 120_000);

  it('keeps answering from the last good commit when object storage is unreachable or a commit cannot be read, and says so', async () => {
    const answer = async (instance: Instance): Promise<string> => {
      const { status, body } = await cluster.ask(instance, QUESTION, AS_OF);
      expect(status).toBe(200);
      return body.answer;
    };
    const stale = (pattern: RegExp) => (): Promise<boolean> =>
      Promise.all(cluster.instances.map(health)).then((all) => all.every((h) => h.index.state === 'stale' && pattern.test(h.index.error ?? '')));
    const current = (): Promise<boolean> => Promise.all(cluster.instances.map(health)).then((all) => all.every((h) => h.index.state === 'current'));

    await cluster.store.stop();
    await until(stale(/unreachable/u), 15_000, 'every instance reports the outage');
    for (const instance of cluster.instances) expect(await answer(instance)).toContain('$45');
    const metrics = await (await fetch(`${cluster.instances[0]?.url ?? ''}/metrics`, { headers: operator() })).text();
    expect(metrics).toMatch(/^citetrace_index_stale 1$/mu);
    await cluster.store.start();
    await until(current, 15_000, 'every instance recovers');

    // A commit whose file does not match its recorded digest is not served.
    const good = await cluster.index.read('manifest.json');
    const manifest = await cluster.manifest();
    const [first] = Object.keys(manifest.files ?? {});
    await cluster.index.write('manifest.json', JSON.stringify({ ...manifest, seq: manifest.seq + 1, files: { ...manifest.files, [first ?? '']: `sha256:${'0'.repeat(64)}` } }));
    try {
      await until(stale(/cannot be read: file .* differs from the digest/u), 15_000, 'every instance refuses the damaged commit');
      for (const instance of cluster.instances) {
        expect(await answer(instance)).toContain('$45');
        expect((await health(instance)).index.commit).toBe(manifest.seq);
      }
    } finally {
      await cluster.index.write('manifest.json', good ?? '');
    }
    await until(current, 15_000, 'every instance is current again');

    // Wrong credentials: a new instance refuses to start with one line. (s3rver checks the access key id; it does not
    // compute SigV4 signatures, so a wrong secret would pass here.)
    const refused = runCli(['serve', '--port', '0'], { ...cluster.env, AWS_ACCESS_KEY_ID: 'WRONG', CITETRACE_DATA: await tempDir('citetrace-bad-') });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toMatch(/^citetrace: object storage refused reading manifest\.json of s3:\/\/citetrace\/deployment \(\w+\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n$/u);
  }, 180_000);
});
