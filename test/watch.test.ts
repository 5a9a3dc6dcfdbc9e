import { execFileSync } from 'node:child_process';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestReport, SkippedEntry } from '../src/ingest/index.js';
import { watchRepository, type Watcher } from '../src/ingest/index.js';
import { openPolicyIndex, readManifest } from '../src/index-store/index.js';
import { openRuntime } from '../src/main.js';
import { CLOCK, copyCorpus, realEmbedder, tempDir, testConfig } from './helpers.js';

/** How long a file must stay unchanged before the watcher reads it; far above the test's own pauses between writes, so a busy machine cannot stretch a pause past it. */
const SETTLE_MS = 1_500;
const DEBOUNCE_MS = 200;

// Deadlines are generous: on a busy 2-core machine one ingest (embedding included) can take many seconds.
async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('citetrace watch', () => {
  let corpus: string;
  let dataDir: string;
  let watcher: Watcher;
  const reports: IngestReport[] = [];
  const errors: string[] = [];
  const skips: SkippedEntry[] = [];

  beforeAll(async () => {
    corpus = await copyCorpus();
    dataDir = await tempDir('citetrace-data-');
    watcher = watchRepository({
      root: corpus,
      dataDir,
      embedder: await realEmbedder(),
      now: CLOCK(),
      clock: () => new Date(),
      onIngest: (r) => reports.push(r),
      onError: (e) => errors.push(e instanceof Error ? e.message : String(e)),
      onSkip: (s) => skips.push(s),
      limits: { maxPageBytes: 64 * 1024, maxFiles: 1000 },
      settleMs: SETTLE_MS,
      debounceMs: DEBOUNCE_MS,
    });
    await watcher.ready;
  });
  afterAll(() => watcher.close());

  const commit = async (): Promise<number> => (await readManifest(dataDir))?.seq ?? 0;
  /**
   * The watcher's report of the ingest that committed after `seq`. The manifest is on disk before
   * the ingest has finished (and before onIngest runs), so the test waits for the report, not the
   * manifest, and takes that report rather than whichever was last.
   */
  const committedAfter = (seq: number): Promise<IngestReport> => waitFor(() => Promise.resolve(reports.find((r) => r.commit > seq)));

  it('turns an edit into a new revision and keeps the old one, its passages and old traces resolvable', async () => {
    const config = testConfig(dataDir);
    const embedder = await realEmbedder();
    const before = await openRuntime({ config, embedder, clock: CLOCK });
    const oldTrace = await before.assistant.ask({ question: 'Until what time can I get blood drawn at the Harbor lab?', role: 'patient' });
    await before.close();
    const oldCitation = oldTrace.citations[0];
    expect(oldTrace.answer).toMatch(/4 pm/u);
    expect(oldCitation).toBeDefined();

    const seq = await commit();
    const probe = await openPolicyIndex({ dataDir });
    const oldPassages = await probe.passagesOf(oldCitation?.revision as never);
    probe.close();
    expect(oldPassages.length).toBeGreaterThan(3);
    const file = path.join(corpus, 'lab', 'harbor-lab-hours.md');
    const edited = (await readFile(file, 'utf8'))
      .replaceAll('2026-05-04', '2026-11-30')
      .replace('from 7 am to 4 pm', 'from 7 am to 5 pm');
    await writeFile(file, edited);
    expect((await committedAfter(seq)).added.map((a) => a.sourceId)).toEqual(['harbor-lab-hours']);

    const after = await openRuntime({ config, embedder, clock: CLOCK });
    try {
      const lab = [...after.index.revisions.values()].filter((r) => r.sourceId === 'harbor-lab-hours');
      expect(lab.map((r) => r.version).sort()).toEqual(['2025-02-10', '2026-05-04', '2026-11-30']);
      const inForce = after.index.inForce({ role: 'patient', asOf: '2026-12-02' }).get('harbor-lab-hours' as never);
      expect(inForce?.version).toBe('2026-11-30');

      const newTrace = await after.assistant.ask({ question: 'Until what time can I get blood drawn at the Harbor lab?', role: 'patient' });
      expect(newTrace.answer).toMatch(/5 pm/u);

      expect(await after.index.passagesOf(oldCitation?.revision as never)).toEqual(oldPassages);
      // The old trace still resolves to the old text, byte for byte, through the index.
      const oldBody = await after.index.revisionBody(oldCitation?.revision as never);
      const oldRetrieved = oldTrace.retrieved.find((r) => r.label === oldCitation?.label);
      expect(oldBody?.slice(oldRetrieved?.start, oldRetrieved?.end)).toBe(oldCitation?.text);
      expect(oldCitation?.text).toMatch(/4 pm/u);
    } finally {
      await after.close();
    }
    expect(errors).toEqual([]);
  });

  it('ignores editor swap and backup files', async () => {
    const seq = await commit();
    await writeFile(path.join(corpus, 'lab', '.harbor-lab-hours.md.swp'), 'garbage');
    await writeFile(path.join(corpus, 'lab', 'harbor-lab-hours.md~'), 'garbage');
    // Nothing to wait for when nothing happens: wait well past the time a real change takes to be picked up.
    await new Promise((r) => setTimeout(r, SETTLE_MS + DEBOUNCE_MS + 2_000));
    expect(await commit()).toBe(seq);
    expect(errors).toEqual([]);
  });

  it('waits for a half-written file to settle before ingesting it', async () => {
    const seq = await commit();
    const file = path.join(corpus, 'patients', 'slow-writer.md');
    const content = '---\nsource_id: slow-writer\ntitle: Slow\nstatus: approved\neffective_date: 2026-01-01\nversion: "1"\n---\nThe Northgate Clinic has a quiet room.\n';
    const handle = await import('node:fs/promises').then((fs) => fs.open(file, 'w'));
    await handle.write(content.slice(0, 30));
    await new Promise((r) => setTimeout(r, 120));
    await handle.write(content.slice(30));
    await handle.close();
    const report = await committedAfter(seq);
    expect(errors).toEqual([]);
    expect(report.added.map((a) => a.sourceId)).toEqual(['slow-writer']);
    expect(reports.filter((r) => r.commit > seq)).toEqual([report]);
  });

  it('reports a bad file without writing, then ingests once it is fixed', async () => {
    const seq = await commit();
    const file = path.join(corpus, 'patients', 'broken.md');
    await writeFile(file, '---\ntitle: no id\n---\nText.\n');
    await waitFor(() => Promise.resolve(errors.length > 0 ? true : undefined));
    expect(errors.at(-1)).toMatch(/broken\.md:1: missing required fields source_id, effective_date$/u);
    expect(await commit()).toBe(seq);
    // The same refusal again (a second write of the same bad text) is not said a second time.
    await writeFile(file, '---\ntitle: no id\n---\nText.\n\n');
    await new Promise((r) => setTimeout(r, SETTLE_MS + DEBOUNCE_MS + 2_000));
    await writeFile(file, '---\nsource_id: broken-fixed\ntitle: Fixed\nstatus: approved\neffective_date: 2026-01-01\nversion: "1"\n---\nFixed text about parking.\n');
    expect((await committedAfter(seq)).added.map((a) => a.sourceId)).toEqual(['broken-fixed']);
    expect(errors.filter((e) => e.includes('broken.md'))).toHaveLength(1);
  });

  it('withdraws a removed source without deleting its history', async () => {
    const seq = await commit();
    await rm(path.join(corpus, 'billing', 'billing-contact.md'));
    expect((await committedAfter(seq)).withdrawn).toContain('billing-contact');
    const index = await openPolicyIndex({ dataDir });
    try {
      expect([...index.revisions.values()].some((r) => r.sourceId === 'billing-contact')).toBe(true);
      expect(index.inForce({ role: 'patient', asOf: '2026-12-02' }).has('billing-contact' as never)).toBe(false);
    } finally {
      index.close();
    }
  });

  it('says which added files it skips and why, and refuses an over-size page without committing', async () => {
    const seq = await commit();
    const lab = path.join(corpus, 'lab');
    await writeFile(path.join(lab, 'notes.txt'), 'not a policy');
    await symlink(path.join(lab, 'harbor-lab-hours.md'), path.join(lab, 'linked.md'));
    execFileSync('mkfifo', [path.join(lab, 'pipe.md')]);
    const expected = [
      { file: path.join(lab, 'notes.txt'), reason: 'not Markdown (*.md)' },
      { file: path.join(lab, 'linked.md'), reason: 'symbolic link (not followed)' },
      { file: path.join(lab, 'pipe.md'), reason: 'not a regular file' },
    ];
    await waitFor(() => Promise.resolve(expected.every((e) => skips.some((s) => s.file === e.file && s.reason === e.reason)) ? true : undefined));

    const errorsBefore = errors.length;
    const big = path.join(lab, 'huge.md');
    await writeFile(big, `---\nsource_id: huge\ntitle: Huge\nstatus: approved\neffective_date: 2026-01-01\n---\n${'Words about parking. '.repeat(5000)}\n`);
    await waitFor(() => Promise.resolve(errors.length > errorsBefore ? true : undefined));
    expect(errors.at(-1)).toMatch(/huge\.md: \d+ bytes is over the page limit of 65536 bytes/u);
    expect(await commit()).toBe(seq);
    for (const file of ['notes.txt', 'linked.md', 'pipe.md', 'huge.md']) await rm(path.join(lab, file));
  });
});
