import path from 'node:path';
import { CitetraceError, type Passage, type Revision, type RevisionId, type RevisionMeta, type SourceId } from '../domain/index.js';
import type { Embedder } from '../embed/index.js';
import { policyNames, properNames } from '../policy/index.js';
import { commitIngest, locate, readManifest, openPolicyIndex, type EmbeddedPassage, type IndexAt } from '../index-store/index.js';
import { chunkRevision, searchTextOf } from './chunk.js';
import type { FileProblem } from './parse.js';
import { formatProblem, scanRepository, type IngestLimits, type SkippedEntry } from './repository.js';

export interface IngestReport {
  readonly root: string;
  /** Distinct revisions present in the repository. */
  readonly revisionsPresent: number;
  readonly added: readonly Pick<Revision, 'sourceId' | 'version' | 'revision' | 'path'>[];
  readonly passagesAdded: number;
  /** Sources with no file left in the repository: history kept, no longer in force. */
  readonly withdrawn: readonly SourceId[];
  /** Files and folders of the repository that were not read, with the reason. */
  readonly skipped: readonly SkippedEntry[];
  /** Possible prompt injections in revisions this run added, by file and line. */
  readonly warnings: readonly FileProblem[];
  /** Manifest sequence number after this run; unchanged when nothing changed. */
  readonly commit: number;
  readonly changed: boolean;
}

export interface IngestOptions {
  readonly root: string;
  /** A local data folder, or an index on object storage (with the writer lease). */
  readonly dataDir: IndexAt;
  readonly embedder: Embedder;
  readonly now: Date;
  readonly onProgress?: (message: string) => void;
  /** Bytes per policy file and files per commit; default DEFAULT_INGEST_LIMITS. Over either: BAD_POLICY_FILE naming the file, nothing written. */
  readonly limits?: IngestLimits;
  /** Interrupts the ingest; anything written is undone and the previous commit stays. */
  readonly signal?: AbortSignal;
}

/**
 * Ingest a policy repository: validate every file first (any problem: nothing is written), then
 * append only revisions the index has not seen, and commit the repository's present set.
 * Re-ingesting identical content writes nothing.
 */
export async function ingestRepository(options: IngestOptions): Promise<IngestReport> {
  const { root, embedder } = options;
  const dataDir = locate(options.dataDir);
  const { signal } = options;
  const scan = await scanRepository(root, options.limits);
  if (scan.problems.length > 0) {
    throw new CitetraceError('BAD_POLICY_FILE', scan.problems.map(formatProblem).join('\n'));
  }
  signal?.throwIfAborted();
  // An ingest killed mid-write left its lock and uncommitted files: undo them before reading.
  if (await dataDir.recover()) options.onProgress?.(`${dataDir.where}: undid an interrupted ingest (the previous commit is intact)`);

  const previous = await readManifest(dataDir);
  const known: ReadonlyMap<RevisionId, RevisionMeta> = previous === null ? new Map() : await knownRevisions(dataDir);
  if (previous !== null && previous.model.weights_sha256 !== embedder.weightsSha256) {
    throw new CitetraceError(
      'MODEL_MISMATCH',
      `${dataDir.where}: index was built with ${previous.model.id} (${previous.model.weights_sha256.slice(0, 12)}), not ${embedder.modelId} (${embedder.weightsSha256.slice(0, 12)}); use a new --data folder`,
    );
  }
  const labels = new Map<string, RevisionMeta>();
  for (const meta of known.values()) {
    if (meta.version !== null) labels.set(`${meta.sourceId}@${meta.version}`, meta);
  }
  for (const rev of scan.revisions) {
    const claimed = rev.version === null ? undefined : labels.get(`${rev.sourceId}@${rev.version}`);
    if (claimed !== undefined && claimed.revision !== rev.revision) {
      throw new CitetraceError(
        'REVISION_CONFLICT',
        `${rev.path}: (source_id, version) (${rev.sourceId}, ${rev.version ?? ''}) already names revision ${claimed.revision} (first read from ${claimed.path}); give this revision a new version`,
      );
    }
  }

  const fresh = scan.revisions.filter((rev) => !known.has(rev.revision));
  const present = scan.revisions.map((rev) => rev.revision).sort();
  const unchanged =
    previous !== null &&
    // An index committed before the policies' names were kept gets them with its next ingest.
    previous.names !== undefined &&
    fresh.length === 0 &&
    JSON.stringify(previous.assistant) === JSON.stringify(scan.assistant) && previous.present.length === present.length && previous.present.every((r, i) => r === present[i]);
  const presentSources = new Set(scan.revisions.map((rev) => rev.sourceId));
  const withdrawn = [
    ...new Set(
      (previous?.present ?? []).map((r) => known.get(r)?.sourceId).filter((s): s is SourceId => s !== undefined && !presentSources.has(s)),
    ),
  ].sort();
  const freshFiles = new Set(fresh.map((rev) => rev.path));
  const report = { root, revisionsPresent: present.length, withdrawn, skipped: scan.skipped, warnings: scan.warnings.filter((w) => freshFiles.has(w.file)) };
  if (unchanged) return { ...report, added: [], passagesAdded: 0, commit: previous.seq, changed: false };

  let passagesAdded = 0;
  const manifest = await commitIngest({
    dataDir,
    repository: path.resolve(root),
    assistant: scan.assistant,
    model: { id: embedder.modelId, weights_sha256: embedder.weightsSha256, dimensions: embedder.dimensions },
    revisions: fresh,
    ...(signal === undefined ? {} : { signal }),
    passages: embedPassages(fresh, embedder, signal, (count, revisions) => {
      passagesAdded = count;
      options.onProgress?.(`embedded ${count} passages of ${revisions}/${fresh.length} new revisions`);
    }),
    present,
    // People need the tagger, so only new revisions are read for them; proper names are read from every revision, so an index
    // committed before they were kept gains them at its next commit.
    names: [...new Set([...(previous?.names ?? []), ...policyNames(previous?.names === undefined ? scan.revisions : fresh), ...properNames(scan.revisions)])].sort(),
    now: options.now,
  });
  return {
    ...report,
    added: fresh.map(({ sourceId, version, revision, path: file }) => ({ sourceId, version, revision, path: file })),
    passagesAdded,
    commit: manifest.seq,
    changed: true,
  };
}

async function knownRevisions(dataDir: IndexAt): Promise<ReadonlyMap<RevisionId, RevisionMeta>> {
  const index = await openPolicyIndex({ dataDir });
  try {
    return new Map(index.revisions);
  } finally {
    index.close();
  }
}

/** Passages per model call, and per append to the index: an ingest holds one append's worth of vectors. */
const EMBED_BATCH = 64;
const APPEND_BATCH = 2048;

/** Chunk and embed revisions in order, yielding appendable batches as they fill. */
async function* embedPassages(
  revisions: readonly Revision[],
  embedder: Embedder,
  signal: AbortSignal | undefined,
  progress: (passages: number, revisions: number) => void,
): AsyncGenerator<readonly EmbeddedPassage[]> {
  const pending: { readonly passage: Passage; readonly searchText: string }[] = [];
  let embedded = 0;
  let read = 0;
  const flush = async (): Promise<readonly EmbeddedPassage[]> => {
    // Texts of similar length share a model call, so less of each call is padding.
    const batch = pending.splice(0, APPEND_BATCH).sort((a, b) => a.searchText.length - b.searchText.length);
    const out: EmbeddedPassage[] = [];
    for (let i = 0; i < batch.length; i += EMBED_BATCH) {
      const slice = batch.slice(i, i + EMBED_BATCH);
      signal?.throwIfAborted();
      const vectors = await embedder.embed({ texts: slice.map((p) => p.searchText), ...(signal === undefined ? {} : { signal }) });
      slice.forEach(({ passage, searchText }, k) => {
        const vector = vectors[k];
        if (vector === undefined) throw new CitetraceError('INTERNAL', 'embedder returned fewer vectors than passages');
        out.push({ ...passage, searchText, vector });
      });
      embedded += slice.length;
      progress(embedded, read);
    }
    return out;
  };
  for (const rev of revisions) {
    for (const passage of chunkRevision(rev)) pending.push({ passage, searchText: searchTextOf(rev.title, passage) });
    read += 1;
    while (pending.length >= APPEND_BATCH) yield await flush();
  }
  if (pending.length > 0) yield await flush();
}
