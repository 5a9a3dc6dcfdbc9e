import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { LANCE_DIR } from './manifest.js';

/** LanceDB's cache of the newest version number: the one file it rewrites in place. Every other file it writes is never changed. */
export function isRewrittenInPlace(relativePath: string): boolean {
  return relativePath.endsWith('/_versions/latest_version_hint.json');
}

/** LanceDB names version v's manifest 2^64 - 1 - v, so the newest sorts first. */
const U64_MAX = 2n ** 64n - 1n;

/** What a version hint must say: the newest version whose manifest is in its folder. */
async function expectedHint(versionsDir: string): Promise<string> {
  const versions = (await readdir(versionsDir)).filter((name) => /^\d+\.manifest$/u.test(name)).map((name) => U64_MAX - BigInt(name.slice(0, -'.manifest'.length)));
  const newest = versions.reduce((a, b) => (b > a ? b : a), 0n);
  return JSON.stringify({ version: Number(newest) });
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * sha256 of every immutable LanceDB file, by path relative to the data folder, in path order.
 * Files already digested by the previous commit keep that digest (they are immutable, and a
 * change since then must stay detectable); only new files are read.
 */
export async function digestIndexFiles(dataDir: string, known: Readonly<Record<string, string>> = {}): Promise<Record<string, string>> {
  const files = (await indexFiles(dataDir)).filter((rel) => !isRewrittenInPlace(rel));
  const out: Record<string, string> = {};
  for (const rel of files) out[rel] = known[rel] ?? (await sha256Of(path.join(dataDir, rel)));
  return out;
}

async function indexFiles(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, LANCE_DIR);
  return (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dataDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/**
 * Every committed index file that is missing or whose bytes changed since the commit recorded its
 * digest, and every version hint that does not name its table's newest version.
 */
export async function changedIndexFiles(dataDir: string, files: Readonly<Record<string, string>>): Promise<string[]> {
  const findings: string[] = [];
  for (const rel of (await indexFiles(dataDir)).filter(isRewrittenInPlace)) {
    const file = path.join(dataDir, rel);
    if ((await readFile(file, 'utf8')) !== (await expectedHint(path.dirname(file)))) findings.push(`file ${rel}: does not name the newest table version`);
  }
  for (const [rel, digest] of Object.entries(files)) {
    const file = path.join(dataDir, rel);
    if (!existsSync(file)) findings.push(`file ${rel}: missing`);
    else if ((await sha256Of(file)) !== digest) findings.push(`file ${rel}: bytes differ from the digest recorded at commit`);
  }
  return findings;
}
