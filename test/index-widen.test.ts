import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { beforeAll, describe, expect, it } from 'vitest';
import { CitetraceError } from '../src/domain/index.js';
import { verifyIndex } from '../src/eval/index.js';
import { commitIngest, openPolicyIndex, readManifest } from '../src/index-store/index.js';
import { chunkRevision, ingestRepository, scanRepository, searchTextOf } from '../src/ingest/index.js';
import { CLOCK, copyCorpus, hashEmbedder, runBin, snapshotFiles, tempDir } from './helpers.js';

/**
 * Audit of issue 17, finding 4: an index widened by a NEW commit. A patched ingester (the
 * REVISION_CONFLICT check removed) publishes the staff-only page to patients under its existing
 * (source_id, version); `verify --index` must name the pair, the commits and what differs. Real
 * LanceDB files in temp folders; a deterministic embedder (the vectors play no part here).
 */

const STAFF_PAGE = path.join('staff', 'scheduling-desk-overrides.md');
const SOURCE = 'scheduling-desk-overrides';

const embedder = hashEmbedder();

let corpus: string;
let pristine: string;

beforeAll(async () => {
  corpus = await copyCorpus();
  pristine = path.join(await tempDir(), 'data');
  await ingestRepository({ root: corpus, dataDir: pristine, embedder, now: CLOCK() });
});

async function copy(): Promise<string> {
  const dir = path.join(await tempDir(), 'data');
  await cp(pristine, dir, { recursive: true });
  return dir;
}

/** The demo corpus with the staff-only page opened to patients; `version` bumped or kept. */
async function widened(version: 'kept' | 'bumped'): Promise<string> {
  const root = await tempDir();
  await cp(corpus, root, { recursive: true });
  const file = path.join(root, STAFF_PAGE);
  let text = (await readFile(file, 'utf8')).replace(/^audience: \[staff\]$/mu, 'audience: [patient, staff]');
  if (version === 'bumped') text = text.replace(/^version: (.*)$/mu, 'version: $1-b');
  await writeFile(file, text);
  return root;
}

/** What a patched ingester writes: the changed revisions as a new commit, no conflict check. */
async function patchedIngest(dataDir: string, root: string): Promise<void> {
  const scan = await scanRepository(root);
  const index = await openPolicyIndex({ dataDir });
  const known = new Set(index.revisions.keys());
  index.close();
  const fresh = scan.revisions.filter((r) => !known.has(r.revision));
  const passages = await Promise.all(
    fresh.flatMap((r) => chunkRevision(r)).map(async (p) => {
      const title = fresh.find((r) => r.revision === p.revision)?.title ?? '';
      const searchText = searchTextOf(title, p);
      const [vector] = await embedder.embed({ texts: [searchText] });
      return { ...p, searchText, vector: vector ?? new Float32Array(8) };
    }),
  );
  const manifest = await readManifest(dataDir);
  await commitIngest({
    dataDir,
    repository: root,
    assistant: scan.assistant,
    model: manifest?.model ?? { id: embedder.modelId, weights_sha256: embedder.weightsSha256, dimensions: embedder.dimensions },
    revisions: fresh,
    passages: [passages],
    present: scan.revisions.map((r) => r.revision).sort(),
    now: CLOCK(),
  });
}

async function findings(dataDir: string): Promise<readonly string[]> {
  const index = await openPolicyIndex({ dataDir });
  try {
    return (await verifyIndex({ index, dataDir })).findings;
  } finally {
    index.close();
  }
}

describe('an index widened by a new commit', () => {
  it('raises no finding on the untouched index', async () => {
    expect(await findings(await copy())).toEqual([]);
  });

  it('the ingester refuses a changed revision under an existing (source_id, version), and writes nothing', async () => {
    const dir = await copy();
    const before = await snapshotFiles(dir);
    const error = await ingestRepository({ root: await widened('kept'), dataDir: dir, embedder, now: CLOCK() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CitetraceError);
    expect((error as CitetraceError).code).toBe('REVISION_CONFLICT');
    expect((error as Error).message).toContain(`(${SOURCE}, `);
    expect(await snapshotFiles(dir)).toEqual(before);
  });

  it('verify --index names a (source_id, version) a patched ingester gave a second content in a new commit, and what differs', async () => {
    const dir = await copy();
    await patchedIngest(dir, await widened('kept'));
    const found = await findings(dir);
    const pair = found.filter((f) => f.includes(`(${SOURCE}, `));
    expect(pair, found.join('\n')).toHaveLength(1);
    expect(pair[0]).toMatch(/names 2 revisions/u);
    expect(pair[0]).toMatch(/commit 1.*commit 2/u);
    expect(pair[0]).toMatch(/audience/u);
    // As an auditor scripts it: exit 1, the pair on stdout.
    const cli = await runBin(['--data', dir, 'verify', '--index']);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`(source_id, version) (${SOURCE}, `);
  });

  it('a revision whose text no longer hashes to its id is named, in whichever commit it was written', async () => {
    const dir = await copy();
    await patchedIngest(dir, await widened('bumped'));
    // The attacker then edits the staff page's revision row of commit 1 in LanceDB and re-points the manifest.
    const db = await lancedb.connect(path.join(dir, 'lance'));
    const table = await db.openTable('revisions');
    await table.update({ where: `source_id = '${SOURCE}' AND ingest_seq = 1`, valuesSql: { body: "'Patients may use override code RS-OVR.'" } });
    const version = await table.version();
    table.close();
    db.close();
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { seq: number; tables: Record<string, number> };
    manifest.tables.revisions = version;
    const text = `${JSON.stringify(manifest, null, 2)}\n`;
    await writeFile(path.join(dir, 'manifest.json'), text);
    await writeFile(path.join(dir, 'commits', `${String(manifest.seq).padStart(8, '0')}.json`), text);
    const found = await findings(dir);
    expect(found.some((f) => f.includes('stored text hashes to'))).toBe(true);
  });
});
