import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { LANCE_DIR } from './manifest.js';
import { recoverInterruptedWrite, withWriteLock } from './write-lock.js';

/**
 * Where an index lives: a local data folder, or a prefix in S3-compatible object storage
 * (s3-location.ts). Paths are relative to the index root, `/`-separated: `manifest.json`,
 * `commits/00000001.json`, `lance/...`. Everything but the manifest is written once and never
 * changed, so a reader that copies files named by a manifest never sees a half-written version.
 */
export interface IndexLocation {
  /** The folder or `s3://bucket/prefix`, for messages. */
  readonly where: string;
  /** LanceDB on the `lance/` folder of the index (created when missing). */
  connect(): Promise<lancedb.Connection>;
  /** The bytes of one file, or null when there is none. */
  read(rel: string): Promise<Uint8Array | null>;
  /** Replace one file whole and durably: readers see the old bytes or the new, never a part. */
  write(rel: string, bytes: string | Uint8Array): Promise<void>;
  /** Every file under a folder (relative to the index root), sorted. */
  list(dir: string): Promise<readonly string[]>;
  /** Run one index write as the only writer of this index. */
  writing<T>(work: () => Promise<T>): Promise<T>;
  /** Undo a write a crash interrupted; true when there was one. */
  recover(): Promise<boolean>;
}

/** A local folder, or a location already built (object storage). */
export type IndexAt = string | IndexLocation;

export const locate = (at: IndexAt): IndexLocation => (typeof at === 'string' ? localIndex(at) : at);

/** Write to a temporary file, fsync, rename over the target: the target is old or new, never torn. */
export async function writeFileDurably(file: string, bytes: string | Uint8Array, tmp = `${file}.tmp`): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
}

/** An index in a folder of this machine; one writer at a time through the folder's lock file. */
export function localIndex(dataDir: string): IndexLocation {
  const full = (rel: string): string => path.join(dataDir, ...rel.split('/'));
  return {
    where: dataDir,
    async connect() {
      await mkdir(full(LANCE_DIR), { recursive: true });
      return lancedb.connect(full(LANCE_DIR));
    },
    async read(rel) {
      const file = full(rel);
      return existsSync(file) ? readFile(file) : null;
    },
    write: (rel, bytes) => writeFileDurably(full(rel), bytes),
    async list(dir) {
      const root = full(dir);
      if (!existsSync(root)) return [];
      return (await readdir(root, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dataDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
        .sort();
    },
    writing: (work) => withWriteLock(dataDir, work),
    recover: () => recoverInterruptedWrite(dataDir),
  };
}
