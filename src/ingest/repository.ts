import { constants, existsSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  AssistantConfigSchema,
  CitetraceError,
  type AssistantConfig,
  type Revision,
  type RevisionId,
} from '../domain/index.js';
import { flaggedSpans } from '../cite/index.js';
import { shippedInjectionDetector } from '../policy/index.js';
import { chunkRevision } from './chunk.js';
import { canonicalContent, parsePolicyFile, type FileProblem } from './parse.js';
import { DEFAULT_INGEST_LIMITS } from '../config/index.js';

/** Editor swap, backup and temporary files are never policy revisions. */
export function isPolicyFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.') && !name.startsWith('#') && !name.endsWith('~');
}

/** A file or folder of the repository that is not read, and why; reported by ingest and watch. */
export interface SkippedEntry {
  readonly file: string;
  readonly reason: SkipReason;
}
export type SkipReason = 'hidden' | 'symbolic link (not followed)' | 'not a regular file' | 'not Markdown (*.md)' | 'editor backup or temporary file' | 'node_modules';

/** Why a directory entry is not a policy file, or null when it is one (or a folder to descend into). */
export function skipReasonOf(entry: { readonly name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }, atRoot: boolean): SkipReason | null {
  const { name } = entry;
  if (name.startsWith('.')) return 'hidden';
  if (entry.isSymbolicLink()) return 'symbolic link (not followed)';
  if (entry.isDirectory()) return name === 'node_modules' ? 'node_modules' : null;
  if (!entry.isFile()) return 'not a regular file';
  if (atRoot && name === 'assistant.yaml') return null;
  if (name.startsWith('#') || name.endsWith('~')) return 'editor backup or temporary file';
  return name.endsWith('.md') ? null : 'not Markdown (*.md)';
}

interface Listing {
  readonly files: string[];
  readonly skipped: SkippedEntry[];
  /** The first file over the per-commit limit, when there are too many. */
  overLimit?: string;
}

async function listPolicyFiles(root: string, maxFiles: number, listing: Listing = { files: [], skipped: [] }, rel = ''): Promise<Listing> {
  const entries = await readdir(path.join(root, rel), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (listing.overLimit !== undefined) break;
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const reason = skipReasonOf(entry, rel === '');
    if (reason !== null) listing.skipped.push({ file: path.join(root, child), reason });
    else if (entry.isDirectory()) await listPolicyFiles(root, maxFiles, listing, child);
    else if (entry.name.endsWith('.md')) {
      if (listing.files.length >= maxFiles) listing.overLimit = child;
      else listing.files.push(child);
    }
  }
  return listing;
}

/**
 * A policy file's bytes, read without following a symbolic link or blocking on a FIFO swapped
 * in after the listing, and never more than the page limit (a file growing while it is read
 * included): null when it is larger.
 */
async function readBounded(file: string, maxBytes: number, options: { readonly followLinks?: boolean } = {}): Promise<{ readonly bytes?: Buffer; readonly problem?: string }> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks === true ? 0 : constants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ELOOP' ? 'became a symbolic link while being read' : `cannot be read (${code ?? 'error'})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { problem: 'not a regular file' };
    if (stats.size > maxBytes) return { problem: `${stats.size} bytes is over the page limit of ${maxBytes} bytes (CITETRACE_MAX_PAGE_BYTES)` };
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) return { problem: `over the page limit of ${maxBytes} bytes (CITETRACE_MAX_PAGE_BYTES)` };
    }
    return { bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

export async function readAssistantConfig(root: string): Promise<AssistantConfig> {
  const file = path.join(root, 'assistant.yaml');
  if (!existsSync(file)) throw new CitetraceError('BAD_POLICY_FILE', `${file}: missing (every policy repository needs assistant.yaml at its root)`);
  const read = await readBounded(file, DEFAULT_INGEST_LIMITS.maxPageBytes, { followLinks: true });
  if (read.bytes === undefined) throw new CitetraceError('BAD_POLICY_FILE', `${file}: ${read.problem ?? 'cannot be read'}`);
  const raw = read.bytes.toString('utf8');
  let data: unknown;
  try {
    data = parseYaml(raw);
  } catch (error) {
    // The parser's first line names the problem and where ("… at line 2, column 1:"); the excerpt after it is not one line.
    throw new CitetraceError('BAD_POLICY_FILE', `${file}: malformed YAML: ${((error as Error).message.split('\n')[0] ?? '').replace(/:$/u, '')}`);
  }
  const parsed = AssistantConfigSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CitetraceError('BAD_POLICY_FILE', `${file}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** A policy repository read in one pass: its revisions, or every problem found. */
export interface RepositoryScan {
  readonly root: string;
  readonly assistant: AssistantConfig;
  /** Distinct revisions present in the repository (identical files collapse to one revision). */
  readonly revisions: readonly Revision[];
  readonly problems: readonly FileProblem[];
  /** Entries not read, with the reason: hidden, symbolic links, special files, other file types. */
  readonly skipped: readonly SkippedEntry[];
  /** Not errors: lines that address the assistant rather than patients (possible prompt injection). */
  readonly warnings: readonly FileProblem[];
}

/** How much of a flagged line its warning quotes. */
const QUOTED_CHARS = 120;

/**
 * Text of a revision that reads as instructions to an assistant, one warning per line it starts
 * on (the highest-scoring text there). These are the spans the answer path excludes: the same
 * detector over the same texts (each line, each sentence of a line, each unit) of the same
 * passages (chunkRevision, as ingest stores them).
 */
function instructionWarnings(file: string, text: string, rev: Revision): FileProblem[] {
  const detector = shippedInjectionDetector();
  const bodyLine = text.slice(0, text.length - rev.body.length).split('\n').length;
  const byLine = new Map<number, { readonly text: string; readonly score: number }>();
  for (const span of chunkRevision(rev).flatMap(flaggedSpans)) {
    const line = bodyLine + rev.body.slice(0, span.start).split('\n').length - 1;
    if ((byLine.get(line)?.score ?? -1) < span.score) byLine.set(line, span);
  }
  return [...byLine.entries()]
    .sort(([a], [b]) => a - b)
    .map(([line, { text: flagged, score }]) => {
      const decision = `${detector.modelId} sha256:${detector.sha256.slice(0, 12)} score ${score.toFixed(2)} >= ${detector.threshold}`;
      const squashed = flagged.replace(/\s+/gu, ' ').trim();
      const quoted = squashed.length > QUOTED_CHARS ? `${squashed.slice(0, QUOTED_CHARS)}…` : squashed;
      return { file, line, message: `text addressed to an assistant, not to patients (possible prompt injection; ${decision}); it is never used as an answer: "${quoted}"` };
    });
}

export function formatProblem(p: FileProblem): string {
  return `${p.file}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`;
}

/** How much one ingest reads: bytes per policy file, and policy files in one commit. */
export interface IngestLimits {
  readonly maxPageBytes: number;
  readonly maxFiles: number;
}

/**
 * Read every `*.md` under root; also checks that no two files claim one (source_id, version) with
 * different content. Over the file limit, the scan stops there with one problem naming the file.
 */
export async function scanRepository(root: string, limits: IngestLimits = DEFAULT_INGEST_LIMITS): Promise<RepositoryScan> {
  let listing: Listing;
  try {
    listing = await listPolicyFiles(root, limits.maxFiles);
  } catch (error) {
    throw new CitetraceError('BAD_INPUT', `${root}: cannot read policy repository (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  const assistant = await readAssistantConfig(root);
  const { files, skipped } = listing;
  const problems: FileProblem[] = [];
  if (listing.overLimit !== undefined) {
    const file = path.join(root, listing.overLimit);
    return { root, assistant, revisions: [], skipped, warnings: [], problems: [{ file, message: `more than ${limits.maxFiles} policy files in one commit (CITETRACE_MAX_FILES); raise the limit or split the repository` }] };
  }
  const warnings: FileProblem[] = [];
  const byRevision = new Map<RevisionId, Revision>();
  const byLabel = new Map<string, Revision>();
  for (const rel of files) {
    const file = path.join(root, rel);
    const read = await readBounded(file, limits.maxPageBytes);
    if (read.bytes === undefined) {
      problems.push({ file, message: read.problem ?? 'cannot be read' });
      continue;
    }
    const bytes = read.bytes;
    const result = parsePolicyFile({ file, bytes, assistant });
    if (!result.ok) {
      problems.push(result.problem);
      continue;
    }
    const rev = result.revision;
    warnings.push(...instructionWarnings(file, canonicalContent(bytes.toString('utf8')), rev));
    if (rev.version !== null) {
      const key = `${rev.sourceId}@${rev.version}`;
      const other = byLabel.get(key);
      if (other !== undefined && other.revision !== rev.revision) {
        problems.push({ file, message: `(source_id, version) (${rev.sourceId}, ${rev.version}) is also claimed by ${other.path} with different content` });
        continue;
      }
      byLabel.set(key, rev);
    }
    if (!byRevision.has(rev.revision)) byRevision.set(rev.revision, rev);
  }
  if (files.length === 0) problems.push({ file: root, message: 'no *.md policy files found' });
  return { root, assistant, revisions: [...byRevision.values()], problems, skipped, warnings };
}
