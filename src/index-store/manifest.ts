import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AssistantConfigSchema, CitetraceError, RevisionIdSchema } from '../domain/index.js';
import { locate, type IndexAt } from './location.js';

/**
 * The commit record of the index. LanceDB table versions give us atomic multi-table ingests:
 * rows are appended first, then this file is replaced atomically; readers check out exactly the
 * table versions named here, so a crash mid-ingest leaves the last commit intact.
 * Table versions are a commit mechanism only: revisions are rows, never pruned.
 */
export const ManifestSchema = z.object({
  format: z.literal(1),
  seq: z.number().int().positive(),
  committed_at: z.iso.datetime(),
  repository: z.string(),
  /** The repository's assistant.yaml at this commit: entities and the appointment channel. */
  assistant: AssistantConfigSchema,
  model: z.object({ id: z.string(), weights_sha256: z.string(), dimensions: z.number().int().positive() }),
  tables: z.object({ revisions: z.number().int().positive(), passages: z.number().int().positive() }),
  /** Revisions present in the repository at this commit; only these can be in force. */
  present: z.array(RevisionIdSchema),
  /**
   * sha256 of every immutable LanceDB file at this commit, by path relative to the data folder
   * (`verify --index` re-reads them). Absent in indexes committed before digests were kept.
   */
  files: z.record(z.string(), z.string()).optional(),
  /**
   * People the policies name (providers, staff contacts) and their proper names (services,
   * places: src/policy/names.ts), from every revision ingested so far: the redactor keeps them as
   * it keeps assistant.yaml's names. Absent in indexes committed before they were kept.
   */
  names: z.array(z.string()).optional(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

export const MANIFEST_FILE = 'manifest.json';
export const LANCE_DIR = 'lance';

/**
 * The index snapshot a trace names (`config.index_snapshot`): the commit and a digest of what it
 * committed, file digests included (absent in older manifests, which keep their old ids).
 */
export function snapshotIdOf(manifest: Manifest): string {
  const digest = createHash('sha256')
    .update(JSON.stringify({ tables: manifest.tables, present: manifest.present, model: manifest.model, assistant: manifest.assistant, files: manifest.files }))
    .digest('hex');
  return `${manifest.seq}:${digest.slice(0, 16)}`;
}

export async function readManifest(at: IndexAt): Promise<Manifest | null> {
  const location = locate(at);
  const bytes = await location.read(MANIFEST_FILE);
  if (bytes === null) return null;
  const parsed = ManifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!parsed.success) throw new CitetraceError('INTERNAL', `${location.where}/${MANIFEST_FILE}: not a citetrace index manifest`);
  return parsed.data;
}

export const COMMITS_DIR = 'commits';
export const commitPath = (seq: number): string => `${COMMITS_DIR}/${String(seq).padStart(8, '0')}.json`;

/**
 * Commit: first keep this manifest in the commit log (an auditor resolves any trace's
 * index_snapshot to what was in force then), then replace the current manifest atomically.
 */
export async function writeManifest(at: IndexAt, manifest: Manifest): Promise<void> {
  const location = locate(at);
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await location.write(commitPath(manifest.seq), text);
  await location.write(MANIFEST_FILE, text);
}

/**
 * `SEQ:sha256:...` over the commit log file of a commit, byte for byte: with the file digests it
 * records, this names the whole index as committed (signed into checkpoints). Null when the log
 * does not hold the commit.
 */
export async function commitDigest(at: IndexAt, seq: number): Promise<string | null> {
  const bytes = await locate(at).read(commitPath(seq));
  return bytes === null ? null : `${seq}:sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The manifest of an earlier commit, or null when the log does not hold it. */
export async function readCommit(at: IndexAt, seq: number): Promise<Manifest | null> {
  const bytes = await locate(at).read(commitPath(seq));
  return bytes === null ? null : ManifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
}
