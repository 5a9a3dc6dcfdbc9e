import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CitetraceError } from '../domain/index.js';
import { sha256Of } from './file-digests.js';
import { writeFileDurably, type IndexLocation } from './location.js';
import { COMMITS_DIR, MANIFEST_FILE, ManifestSchema, readManifest, snapshotIdOf, type Manifest } from './manifest.js';

/**
 * Bring a local folder to the committed snapshot of an index on object storage: every file the
 * manifest names that the folder lacks is fetched and checked against the sha256 its commit
 * recorded, the commit log is copied, and the manifest is written last. The folder is then an
 * ordinary data folder that LanceDB reads locally: questions never wait on object storage, and
 * when it is unreachable, or a commit cannot be read, the last good snapshot stays in the folder.
 * Files are immutable and only added, so a snapshot already open keeps reading while a newer one
 * is fetched; several processes may share the folder (unique temporary names, atomic renames).
 */
export async function syncIndexCache(options: { readonly from: IndexLocation; readonly dir: string }): Promise<Manifest> {
  const { from, dir } = options;
  const bytes = await from.read(MANIFEST_FILE);
  if (bytes === null) throw new CitetraceError('INDEX_EMPTY', `no index in ${from.where}: run \`citetrace ingest DIR\` first`);
  const parsed = ManifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!parsed.success) throw new CitetraceError('INDEX_CORRUPT', `${from.where}/${MANIFEST_FILE}: not a citetrace index manifest`);
  const manifest = parsed.data;
  const cached = await readManifest(dir).catch(() => null);
  if (cached !== null && snapshotIdOf(cached) === snapshotIdOf(manifest)) return manifest;
  if (manifest.files === undefined) throw new CitetraceError('INDEX_CORRUPT', `${from.where}: commit ${manifest.seq} records no file digests, so it cannot be copied safely; re-ingest`);
  const local = (rel: string): string => path.join(dir, ...rel.split('/'));
  const put = (rel: string, content: Uint8Array): Promise<void> => writeFileDurably(local(rel), content, `${local(rel)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const missing = (rel: string): boolean => !existsSync(local(rel));
  const unreadable = (rel: string, problem: string): CitetraceError =>
    new CitetraceError('INDEX_CORRUPT', `${from.where}: commit ${manifest.seq} cannot be read: file ${rel} ${problem}`);
  for (const [rel, digest] of Object.entries(manifest.files)) {
    if (missing(rel)) {
      const content = await from.read(rel);
      if (content === null) throw unreadable(rel, 'is missing');
      if (sha256Of(content) !== digest) throw unreadable(rel, 'differs from the digest the commit recorded');
      await put(rel, content);
    } else if ((cached?.files?.[rel] ?? sha256Of(await readFile(local(rel)))) !== digest) {
      // A file already here was checked when it came; files never change, so neither may their digests.
      throw unreadable(rel, 'differs from the digest the commit recorded');
    }
  }
  // Only commits up to this one: a commit log entry past the manifest is a write that never
  // committed, and the next commit replaces it.
  const committed = (rel: string): boolean => Number(path.basename(rel, '.json')) <= manifest.seq;
  for (const rel of (await from.list(COMMITS_DIR)).filter((rel) => committed(rel) && missing(rel))) {
    const content = await from.read(rel);
    if (content !== null) await put(rel, content);
  }
  await put(MANIFEST_FILE, bytes);
  return manifest;
}
