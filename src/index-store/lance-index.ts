import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import {
  CitetraceError,
  ChunkIdSchema,
  RevisionIdSchema,
  RoleSchema,
  SourceIdSchema,
  selectInForce,
  wrapError,
  type IsoDate,
  type Passage,
  type Revision,
  type RevisionId,
  type RevisionMeta,
  type Role,
  type SourceId,
} from '../domain/index.js';
import { LANCE_DIR, readManifest, snapshotIdOf, withWriteLock, writeManifest, type Manifest } from './manifest.js';
import { PASSAGES_TABLE, REVISIONS_TABLE, passagesSchema, revisionsSchema, type PassageRow } from './schema.js';

export interface PassageMatch {
  readonly passage: Passage;
  /** Raw score of the retriever that found it: cosine similarity or BM25. */
  readonly score: number;
}

export interface SearchRequest {
  /** Only passages of these revisions are ranked: access and in-force filters come first. */
  readonly revisions: readonly RevisionId[];
  readonly limit: number;
}

/** A read-only view of one committed snapshot of the index. */
export interface PolicyIndex {
  readonly manifest: Manifest;
  readonly snapshotId: string;
  readonly revisions: ReadonlyMap<RevisionId, RevisionMeta>;
  inForce(query: { readonly role: Role; readonly asOf: IsoDate }): ReadonlyMap<SourceId, RevisionMeta>;
  vectorSearch(request: SearchRequest & { readonly vector: Float32Array }): Promise<readonly PassageMatch[]>;
  textSearch(request: SearchRequest & { readonly query: string }): Promise<readonly PassageMatch[]>;
  /** The stored body of any revision ever ingested, for verification and audits. */
  revisionBody(revision: RevisionId): Promise<string | null>;
  /** Every passage of any revision ever ingested, in body order. */
  passagesOf(revision: RevisionId): Promise<readonly Passage[]>;
  close(): void;
}

/** Arrow list cells (LanceDB returns them as iterable vectors) as plain string arrays. */
const strings = (value: unknown): string[] => (value === null || value === undefined ? [] : Array.from(value as Iterable<string>));
const nullableString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function toRevisionMeta(row: Record<string, unknown>): RevisionMeta {
  return {
    revision: RevisionIdSchema.parse(row.revision),
    sourceId: SourceIdSchema.parse(row.source_id),
    title: String(row.title),
    status: row.status as RevisionMeta['status'],
    effectiveDate: String(row.effective_date),
    version: nullableString(row.version),
    reviewBy: nullableString(row.review_by),
    owner: nullableString(row.owner),
    audience: strings(row.audience).map((r) => RoleSchema.parse(r)),
    entities: JSON.parse(String(row.entities)) as Record<string, string>,
    path: String(row.path),
    ingestSeq: Number(row.ingest_seq),
  };
}

function toPassage(row: Record<string, unknown>): Passage {
  return {
    chunkId: ChunkIdSchema.parse(row.chunk_id),
    revision: RevisionIdSchema.parse(row.revision),
    sourceId: SourceIdSchema.parse(row.source_id),
    start: Number(row.start),
    end: Number(row.end),
    text: String(row.text),
    headings: strings(row.headings),
  };
}

/** Revision ids are validated hex, so inlining them in a filter cannot inject SQL. */
function revisionFilter(revisions: readonly RevisionId[]): string {
  return `revision IN (${revisions.map((r) => `'${RevisionIdSchema.parse(r)}'`).join(', ')})`;
}

/** Keyword queries go to LanceDB's BM25 index as plain words, so no query syntax can break them. */
function plainWords(query: string): string {
  return (query.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

const PASSAGE_COLUMNS = ['chunk_id', 'revision', 'source_id', 'start', 'end', 'text', 'headings'];
// LanceDB wants its score columns named when a search selects columns.
const VECTOR_COLUMNS = [...PASSAGE_COLUMNS, '_distance'];
const TEXT_COLUMNS = [...PASSAGE_COLUMNS, '_score'];

export async function openPolicyIndex(options: { readonly dataDir: string }): Promise<PolicyIndex> {
  const manifest = await readManifest(options.dataDir);
  if (manifest === null) {
    throw new CitetraceError('INDEX_EMPTY', `no index in ${options.dataDir}: run \`citetrace ingest DIR\` first`);
  }
  const db = await lancedb.connect(path.join(options.dataDir, LANCE_DIR));
  const revisionsTable = await db.openTable(REVISIONS_TABLE);
  const passagesTable = await db.openTable(PASSAGES_TABLE);
  await revisionsTable.checkout(manifest.tables.revisions);
  await passagesTable.checkout(manifest.tables.passages);
  const metaColumns = revisionsSchema.fields.map((f) => f.name).filter((name) => name !== 'body');
  const metaRows = await revisionsTable.query().select(metaColumns).toArray();
  const revisions = new Map<RevisionId, RevisionMeta>();
  for (const row of metaRows as Record<string, unknown>[]) {
    const meta = toRevisionMeta(row);
    revisions.set(meta.revision, meta);
  }
  const present = new Set(manifest.present);
  // A snapshot never changes, so the in-force set for a role and date is computed once, not per question.
  const inForceCache = new Map<string, ReadonlyMap<SourceId, RevisionMeta>>();

  return {
    manifest,
    snapshotId: snapshotIdOf(manifest),
    revisions,
    inForce: ({ role, asOf }) => {
      const key = `${role}@${asOf}`;
      let chosen = inForceCache.get(key);
      if (chosen === undefined) {
        chosen = selectInForce(revisions.values(), { role, asOf, present });
        inForceCache.set(key, chosen);
      }
      return chosen;
    },
    async vectorSearch({ vector, revisions: allowed, limit }) {
      if (allowed.length === 0) return [];
      const rows = (await passagesTable
        .vectorSearch(vector)
        .distanceType('cosine')
        .where(revisionFilter(allowed))
        .select(VECTOR_COLUMNS)
        .limit(limit)
        .toArray()) as Record<string, unknown>[];
      return rows.map((row) => ({ passage: toPassage(row), score: 1 - Number(row._distance) }));
    },
    async textSearch({ query, revisions: allowed, limit }) {
      const words = plainWords(query);
      if (allowed.length === 0 || words === '') return [];
      const rows = (await passagesTable
        .query()
        .fullTextSearch(words, { columns: 'search_text' })
        .where(revisionFilter(allowed))
        .select(TEXT_COLUMNS)
        .limit(limit)
        .toArray()) as Record<string, unknown>[];
      return rows.map((row) => ({ passage: toPassage(row), score: Number(row._score) }));
    },
    async revisionBody(revision) {
      const rows = (await revisionsTable
        .query()
        .where(`revision = '${RevisionIdSchema.parse(revision)}'`)
        .select(['body'])
        .limit(1)
        .toArray()) as Record<string, unknown>[];
      return rows[0] === undefined ? null : String(rows[0].body);
    },
    async passagesOf(revision) {
      const rows = (await passagesTable
        .query()
        .where(`revision = '${RevisionIdSchema.parse(revision)}'`)
        .select(PASSAGE_COLUMNS)
        .toArray()) as Record<string, unknown>[];
      return rows.map(toPassage).sort((a, b) => a.start - b.start);
    },
    close() {
      revisionsTable.close();
      passagesTable.close();
      db.close();
    },
  };
}

export interface EmbeddedPassage extends Passage {
  readonly searchText: string;
  readonly vector: Float32Array;
}

export interface CommitRequest {
  readonly dataDir: string;
  readonly repository: string;
  readonly assistant: Manifest['assistant'];
  readonly model: Manifest['model'];
  /** Revisions not yet in the index, with their embedded passages. */
  readonly revisions: readonly Revision[];
  readonly passages: readonly EmbeddedPassage[];
  readonly present: readonly RevisionId[];
  readonly now: Date;
}

function revisionRow(rev: Revision, seq: number, now: Date): Record<string, unknown> {
  return {
    revision: rev.revision,
    source_id: rev.sourceId,
    title: rev.title,
    status: rev.status,
    effective_date: rev.effectiveDate,
    version: rev.version,
    review_by: rev.reviewBy,
    owner: rev.owner,
    audience: [...rev.audience],
    entities: JSON.stringify(rev.entities),
    path: rev.path,
    body: rev.body,
    ingest_seq: seq,
    ingested_at: now.toISOString(),
  };
}

function passageRow(p: EmbeddedPassage, rev: Revision): PassageRow {
  return {
    chunk_id: p.chunkId,
    revision: p.revision,
    source_id: p.sourceId,
    version: rev.version,
    status: rev.status,
    effective_date: rev.effectiveDate,
    audience: [...rev.audience],
    entity_tags: Object.entries(rev.entities).map(([k, v]) => `${k}=${v}`),
    title: rev.title,
    headings: [...p.headings],
    start: p.start,
    end: p.end,
    text: p.text,
    search_text: p.searchText,
    vector: Array.from(p.vector),
  };
}

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
  const { dataDir } = request;
  await mkdir(path.join(dataDir, LANCE_DIR), { recursive: true });
  return withWriteLock(dataDir, async () => {
    const previous = await readManifest(dataDir);
    const db = await lancedb.connect(path.join(dataDir, LANCE_DIR));
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
      if (request.passages.length > 0) {
        await passagesTable.add(
          request.passages.map((p) => {
            const rev = byRevision.get(p.revision);
            if (rev === undefined) throw new CitetraceError('INTERNAL', `passage ${p.chunkId} has no revision in this ingest`);
            return passageRow(p, rev) as unknown as Record<string, unknown>;
          }),
        );
        await passagesTable.createIndex('search_text', {
          config: lancedb.Index.fts({ withPosition: false, stem: true, removeStopWords: true, language: 'English', asciiFolding: true, lowercase: true }),
          replace: true,
        });
      }
      if (request.revisions.length > 0) {
        await revisionsTable.add(request.revisions.map((r) => revisionRow(r, seq, request.now)));
      }
      const manifest: Manifest = {
        format: 1,
        seq,
        committed_at: request.now.toISOString(),
        repository: request.repository,
        assistant: request.assistant,
        model: request.model,
        tables: { revisions: await revisionsTable.version(), passages: await passagesTable.version() },
        present: [...request.present].sort(),
      };
      await writeManifest(dataDir, manifest);
      revisionsTable.close();
      passagesTable.close();
      return manifest;
    } catch (error) {
      throw wrapError('INTERNAL', `index write failed in ${dataDir} (the previous commit is intact)`, error);
    } finally {
      db.close();
    }
  });
}
