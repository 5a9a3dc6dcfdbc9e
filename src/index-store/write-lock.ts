import { existsSync, readFileSync } from 'node:fs';
import { link, mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CitetraceError } from '../domain/index.js';
import { isRewrittenInPlace } from './file-digests.js';
import { COMMITS_DIR, LANCE_DIR, MANIFEST_FILE, readManifest } from './manifest.js';

/**
 * One writer per data folder, and a write that never finished is undone.
 *
 * The lock file is also the write's journal: it names the owner (pid and, on Linux, the
 * process start time, so a recycled pid is not mistaken for the owner), and, once taken, the
 * commit the write started from, every file and folder of the index that existed then, and the content of the few files
 * LanceDB rewrites in place (its version hints). Everything else an ingest writes is a new file:
 * LanceDB data, versions and indices are immutable, the manifest is replaced by rename as the
 * very last step. So undoing an unfinished write is: delete what the journal does not name,
 * put the saved files back. That happens when the write fails or is interrupted, and, after a
 * `kill -9`, when the next writer finds the lock of a dead process.
 */
const LOCK_FILE = '.write.lock';

const ChangesSchema = z.object({
  /** The commit the write started from (null: none yet). */
  seq: z.number().int().nullable(),
  /** Paths relative to the data folder; folders end with '/'. */
  entries: z.array(z.string()),
  /** Files rewritten in place, base64, by relative path. */
  saved: z.record(z.string(), z.string()),
});
type Changes = z.infer<typeof ChangesSchema>;

const LockSchema = z.object({
  pid: z.number().int(),
  started: z.string().nullable(),
  /** What to undo; null while the lock is being taken (nothing written yet). */
  journal: ChangesSchema.nullable(),
});
type Lock = z.infer<typeof LockSchema>;

/** Process start time in clock ticks since boot (Linux), so a reused pid is told apart. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isOwnerAlive(journal: Pick<Lock, 'pid' | 'started'>): boolean {
  if (journal.pid <= 0) return false;
  try {
    process.kill(journal.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return journal.started === null || startTimeOf(journal.pid) === null || startTimeOf(journal.pid) === journal.started;
}

/** Files and folders a write may add to: the LanceDB tables, the commit log and the manifest. */
async function indexEntries(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const top of [LANCE_DIR, COMMITS_DIR]) {
    const dir = path.join(dataDir, top);
    if (!existsSync(dir)) continue;
    out.push(`${top}/`);
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      const rel = path.relative(dataDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
      out.push(entry.isDirectory() ? `${rel}/` : rel);
    }
  }
  for (const name of [MANIFEST_FILE, `${MANIFEST_FILE}.tmp`]) if (existsSync(path.join(dataDir, name))) out.push(name);
  return out;
}

async function changesOf(dataDir: string): Promise<Changes> {
  const entries = await indexEntries(dataDir);
  const saved: Record<string, string> = {};
  for (const rel of entries) {
    if (isRewrittenInPlace(rel)) saved[rel] = (await readFile(path.join(dataDir, rel))).toString('base64');
  }
  return { seq: (await readManifest(dataDir))?.seq ?? null, entries, saved };
}

/** Undo a write that did not commit: remove what it added, restore what it rewrote. A finished commit is kept. */
async function undo(dataDir: string, journal: Changes): Promise<void> {
  const seq = (await readManifest(dataDir))?.seq ?? null;
  if (seq !== journal.seq) return;
  const keep = new Set(journal.entries);
  // Deepest first, so a folder is empty when its turn comes.
  const now = (await indexEntries(dataDir)).sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
  for (const rel of now) {
    if (keep.has(rel)) continue;
    if (rel.endsWith('/')) await rmdir(path.join(dataDir, rel)).catch(() => undefined);
    else await rm(path.join(dataDir, rel), { force: true });
  }
  for (const [rel, content] of Object.entries(journal.saved)) await writeFile(path.join(dataDir, rel), Buffer.from(content, 'base64'));
}

function readLock(lock: string): Lock | null {
  try {
    const parsed = LockSchema.safeParse(JSON.parse(readFileSync(lock, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Write a lock record to a private file first, so the lock itself never exists half-written. */
async function privateRecord(lock: string, journal: Changes | null): Promise<string> {
  const mine = `${lock}.${process.pid}`;
  const record: Lock = { pid: process.pid, started: startTimeOf(process.pid), journal };
  await writeFile(mine, JSON.stringify(record));
  return mine;
}

/**
 * Take the lock (hard-linking a complete record into place is atomic and fails if it exists),
 * then record what the write may change: the journal is taken under the lock, after any undo,
 * and swapped in by rename. A lock of a dead owner is undone and taken over.
 */
async function acquire(dataDir: string): Promise<Changes> {
  const lock = path.join(dataDir, LOCK_FILE);
  const mine = await privateRecord(lock, null);
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await link(mine, lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
          throw new CitetraceError('INDEX_BUSY', `${dataDir}: another citetrace process is writing this index`, { cause: error });
        }
      }
      const held = readLock(lock);
      if (held !== null && isOwnerAlive(held)) {
        throw new CitetraceError('INDEX_BUSY', `${dataDir}: another citetrace process (pid ${held.pid}) is writing this index`);
      }
      if (held?.journal) await undo(dataDir, held.journal);
      await rm(lock, { force: true });
    }
  } finally {
    await rm(mine, { force: true });
  }
  // Private records of writers killed while taking the lock.
  for (const name of await readdir(dataDir)) {
    const pid = Number(/^\.write\.lock\.(\d+)$/u.exec(name)?.[1] ?? '0');
    if (pid > 0 && pid !== process.pid && !isOwnerAlive({ pid, started: null })) await rm(path.join(dataDir, name), { force: true });
  }
  const journal = await changesOf(dataDir);
  await rename(await privateRecord(lock, journal), lock);
  return journal;
}

/**
 * Undo the unfinished write of a process that died holding the lock (a `kill -9` mid-ingest),
 * and remove its lock. Nothing happens when no lock is left or its owner is alive.
 */
export async function recoverInterruptedWrite(dataDir: string): Promise<boolean> {
  const lock = path.join(dataDir, LOCK_FILE);
  if (!existsSync(lock)) return false;
  const held = readLock(lock);
  if (held !== null && isOwnerAlive(held)) return false;
  await withWriteLock(dataDir, () => Promise.resolve());
  return true;
}

/**
 * Run one write under the data folder's lock. The folder is created here when missing (and
 * removed again if the write fails). A failure or interruption undoes every change before the
 * error propagates, and the lock is released in every case but a hard kill, whose lock the next
 * writer undoes and takes over.
 */
export async function withWriteLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const created = await mkdir(dataDir, { recursive: true });
  const lock = path.join(dataDir, LOCK_FILE);
  let journal: Changes;
  try {
    journal = await acquire(dataDir);
  } catch (error) {
    if (created !== undefined) await rm(created, { recursive: true, force: true });
    throw error;
  }
  const release = async (failed: boolean): Promise<void> => {
    // A folder this write created goes away whole; an existing one gets its previous commit back.
    if (failed && created !== undefined) await rm(created, { recursive: true, force: true });
    else {
      try {
        if (failed) await undo(dataDir, journal);
      } finally {
        await rm(lock, { force: true });
      }
    }
  };
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await release(true);
    throw error;
  }
  await release(false);
  return result;
}
