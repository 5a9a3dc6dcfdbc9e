import * as lancedb from '@lancedb/lancedb';
import { CitetraceError, wrapError, type Passage, type Revision, type RevisionId } from '../domain/index.js';
import { passageFacts, revisionFacts } from './evidence.js';
import { digestIndexFiles } from './file-digests.js';
import { hasField } from './filters.js';
import { locate, type IndexAt } from './location.js';
import { readManifest, writeManifest, type Manifest } from './manifest.js';
import { FRONT_MATTER, PASSAGE_ORDINAL, PASSAGES_TABLE, REVISION_ORDINAL, REVISIONS_TABLE, passagesSchema, revisionsSchema, type PassageRow } from './schema.js';
import { DEFAULT_VECTOR_INDEX, maintainOrdinalIndex, maintainVectorIndex, type VectorIndexPolicy } from './vector-index.js';

export interface EmbeddedPassage extends Passage {
  readonly searchText: string;
  readonly vector: Float32Array;
}

export interface CommitRequest {
  /** A local data folder or an index on object storage. */
  readonly dataDir: IndexAt;
  readonly repository: string;
  readonly assistant: Manifest['assistant'];
  readonly model: Manifest['model'];
  /** Revisions not yet in the index. */
  readonly revisions: readonly Revision[];
  /**
   * Their embedded passages, in batches: each is appended as it arrives, so a large ingest never
   * holds every vector at once (100k passages: ~150 MB of vectors, over 1 GB as row objects).
   */
  readonly passages: AsyncIterable<readonly EmbeddedPassage[]> | Iterable<readonly EmbeddedPassage[]>;
  readonly present: readonly RevisionId[];
  /** People the policies name (Manifest.names). */
  readonly names?: readonly string[];
  readonly now: Date;
  /** Stops the write between batches; everything written so far is undone, the previous commit stays. */
  readonly signal?: AbortSignal;
  /** When to build the vector index; default DEFAULT_VECTOR_INDEX. */
  readonly vectorIndex?: VectorIndexPolicy;
}

function revisionRow(rev: Revision, seq: number, now: Date, ordinal: number | null, withFrontMatter: boolean): Record<string, unknown> {
  return {
    ...(ordinal === null ? {} : { [REVISION_ORDINAL]: ordinal }),
    ...(withFrontMatter ? { [FRONT_MATTER]: rev.frontMatter } : {}),
    revision: rev.revision,
    ...revisionFacts(rev),
    path: rev.path,
    ingest_seq: seq,
    ingested_at: now.toISOString(),
  };
}

function passageRow(p: EmbeddedPassage, rev: Revision, ordinal: number | null): PassageRow {
  return {
    ...(ordinal === null ? {} : { rev_ordinal: ordinal }),
    chunk_id: p.chunkId,
    revision: p.revision,
    ...passageFacts(rev),
    source_id: p.sourceId,
    headings: [...p.headings],
    start: p.start,
    end: p.end,
    text: p.text,
    search_text: p.searchText,
    vector: Array.from(p.vector),
  };
}

const ADD_BATCH = 4096;

/** Bring a table back to the committed version, discarding rows of an ingest that never committed. */
async function rollBackTo(table: lancedb.Table, version: number): Promise<void> {
  if ((await table.version()) === version) return;
  await table.checkout(version);
  await table.restore();
}

/**
 * Append new revisions and passages, then commit a new manifest. All or nothing: until the
 * manifest is replaced, readers (and a later ingest) see the previous commit.
 */
export async function commitIngest(request: CommitRequest): Promise<Manifest> {
  const { signal } = request;
  const location = locate(request.dataDir);
  return location.writing(async () => {
    const previous = await readManifest(location);
    const db = await location.connect();
    try {
      const names = await db.tableNames();
      if (previous === null) {
        for (const name of names) await db.dropTable(name);
      }
      const revisionsTable =
        previous === null
          ? await db.createEmptyTable(REVISIONS_TABLE, revisionsSchema)
          : await db.openTable(REVISIONS_TABLE);
      const passagesTable =
        previous === null
          ? await db.createEmptyTable(PASSAGES_TABLE, passagesSchema(request.model.dimensions))
          : await db.openTable(PASSAGES_TABLE);
      if (previous !== null) {
        await rollBackTo(revisionsTable, previous.tables.revisions);
        await rollBackTo(passagesTable, previous.tables.passages);
      }
      const seq = (previous?.seq ?? 0) + 1;
      const byRevision = new Map(request.revisions.map((r) => [r.revision, r]));
      // Ordinals continue after the largest committed one; an index from before ordinals has none.
      const withOrdinals = hasField(await revisionsTable.schema(), REVISION_ORDINAL) && hasField(await passagesTable.schema(), PASSAGE_ORDINAL);
      const withFrontMatter = hasField(await revisionsTable.schema(), FRONT_MATTER);
      const ordinals = new Map<RevisionId, number>();
      if (withOrdinals) {
        let next = 1;
        for (const row of (await revisionsTable.query().select([REVISION_ORDINAL]).toArray()) as Record<string, unknown>[]) next = Math.max(next, Number(row[REVISION_ORDINAL]) + 1);
        for (const rev of request.revisions) ordinals.set(rev.revision, next++);
      }
      // Rows are converted and appended in batches: one array of JS numbers per vector for every
      // passage at once would hold gigabytes at 100k passages. Appended batches stay invisible
      // until the manifest names their table version, and are rolled back like any other write.
      let added = 0;
      for await (const passages of request.passages) {
        signal?.throwIfAborted();
        for (let i = 0; i < passages.length; i += ADD_BATCH) {
          await passagesTable.add(
            passages.slice(i, i + ADD_BATCH).map((p) => {
              const rev = byRevision.get(p.revision);
              if (rev === undefined) throw new CitetraceError('INTERNAL', `passage ${p.chunkId} has no revision in this ingest`);
              return passageRow(p, rev, ordinals.get(p.revision) ?? null) as unknown as Record<string, unknown>;
            }),
          );
        }
        added += passages.length;
      }
      if (added > 0 || request.vectorIndex !== undefined) {
        await maintainVectorIndex(passagesTable, request.vectorIndex ?? DEFAULT_VECTOR_INDEX);
        if (withOrdinals) await maintainOrdinalIndex(passagesTable, PASSAGE_ORDINAL, request.vectorIndex ?? DEFAULT_VECTOR_INDEX);
      }
      for (let i = 0; i < request.revisions.length; i += ADD_BATCH) {
        await revisionsTable.add(request.revisions.slice(i, i + ADD_BATCH).map((r) => revisionRow(r, seq, request.now, ordinals.get(r.revision) ?? null, withFrontMatter)));
      }
      signal?.throwIfAborted();
      const manifest: Manifest = {
        format: 1,
        seq,
        committed_at: request.now.toISOString(),
        repository: request.repository,
        assistant: request.assistant,
        model: request.model,
        tables: { revisions: await revisionsTable.version(), passages: await passagesTable.version() },
        present: [...request.present].sort(),
        files: await digestIndexFiles(location, previous?.files),
        ...(request.names === undefined ? {} : { names: [...request.names] }),
      };
      await writeManifest(location, manifest);
      revisionsTable.close();
      passagesTable.close();
      return manifest;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      throw wrapError('INTERNAL', `index write failed in ${location.where} (the previous commit is intact)`, error);
    } finally {
      db.close();
    }
  });
}
