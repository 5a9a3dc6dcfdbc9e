import { createHash } from 'node:crypto';
import { LANCE_DIR } from './manifest.js';
import { locate, type IndexAt, type IndexLocation } from './location.js';

/** LanceDB's cache of the newest version number: the one file it rewrites in place. Every other file it writes is never changed. */
export function isRewrittenInPlace(relativePath: string): boolean {
  return relativePath.endsWith('/_versions/latest_version_hint.json');
}

/** LanceDB names version v's manifest 2^64 - 1 - v, so the newest sorts first. */
const U64_MAX = 2n ** 64n - 1n;

/** What a version hint must say: the newest version whose manifest is in its folder. */
async function expectedHint(location: IndexLocation, versionsDir: string): Promise<string> {
  const versions = (await location.list(versionsDir))
    .map((rel) => rel.slice(versionsDir.length + 1))
    .filter((name) => /^\d+\.manifest$/u.test(name))
    .map((name) => U64_MAX - BigInt(name.slice(0, -'.manifest'.length)));
  const newest = versions.reduce((a, b) => (b > a ? b : a), 0n);
  return JSON.stringify({ version: Number(newest) });
}

export const sha256Of = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * sha256 of every immutable LanceDB file, by path relative to the index root, in path order.
 * Files already digested by the previous commit keep that digest (they are immutable, and a
 * change since then must stay detectable); only new files are read.
 */
export async function digestIndexFiles(at: IndexAt, known: Readonly<Record<string, string>> = {}): Promise<Record<string, string>> {
  const location = locate(at);
  const files = (await location.list(LANCE_DIR)).filter((rel) => !isRewrittenInPlace(rel));
  const out: Record<string, string> = {};
  for (const rel of files) {
    const digest = known[rel] ?? (await location.read(rel).then((bytes) => (bytes === null ? undefined : sha256Of(bytes))));
    if (digest !== undefined) out[rel] = digest;
  }
  return out;
}

/**
 * Every committed index file that is missing or whose bytes changed since the commit recorded its
 * digest, and every version hint that does not name its table's newest version.
 */
export async function changedIndexFiles(at: IndexAt, files: Readonly<Record<string, string>>): Promise<string[]> {
  const location = locate(at);
  const findings: string[] = [];
  for (const rel of (await location.list(LANCE_DIR)).filter(isRewrittenInPlace)) {
    const hint = Buffer.from((await location.read(rel)) ?? []).toString('utf8');
    if (hint !== (await expectedHint(location, rel.slice(0, rel.lastIndexOf('/'))))) findings.push(`file ${rel}: does not name the newest table version`);
  }
  for (const [rel, digest] of Object.entries(files)) {
    const bytes = await location.read(rel);
    if (bytes === null) findings.push(`file ${rel}: missing`);
    else if (sha256Of(bytes) !== digest) findings.push(`file ${rel}: bytes differ from the digest recorded at commit`);
  }
  return findings;
}
