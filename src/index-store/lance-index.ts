import {
  CitetraceError,
  ChunkIdSchema,
  RevisionIdSchema,
  RoleSchema,
  SourceIdSchema,
  selectInForce,
  type IsoDate,
  type Passage,
  type RevisionId,
  type RevisionMeta,
  type Role,
  type SourceId,
} from '../domain/index.js';
import { EVIDENCE_PASSAGE_COLUMNS, nullableString, strings, toStoredPassage, toStoredRevision, type IndexEvidence } from './evidence.js';
import { allowedFilter, allowedTop, hasField, MAX_UNFILTERED_VECTOR, type Scope } from './filters.js';
import { locate, type IndexAt, type IndexLocation } from './location.js';
import { readManifest, snapshotIdOf, type Manifest } from './manifest.js';
import { FRONT_MATTER, PASSAGE_ORDINAL, PASSAGES_TABLE, REVISION_ORDINAL, REVISIONS_TABLE } from './schema.js';
import { HNSW_EF, HNSW_REFINE, vectorMethodOf, type VectorMethod } from './vector-index.js';
import type * as lancedb from '@lancedb/lancedb';
import { createMemoryTextSearch, type MemoryTextSearch } from './memory-text.js';
import { createMemoryVectorSearch, type MemoryVectorSearch } from './memory-vectors.js';

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
  /** Exact (flat) cosine search, or the HNSW index once the table is large (see vector-index.ts). */
  readonly vectorMethod: VectorMethod;
  inForce(query: { readonly role: Role; readonly asOf: IsoDate }): ReadonlyMap<SourceId, RevisionMeta>;
  /** `exact` skips the ANN index (recall checks, audits): flat search over the same allowed revisions. */
  vectorSearch(request: SearchRequest & { readonly vector: Float32Array; readonly exact?: boolean }): Promise<readonly PassageMatch[]>;
  textSearch(request: SearchRequest & { readonly query: string }): Promise<readonly PassageMatch[]>;
  /** The passages of the revisions, in table order, whose search text holds every word of at least one phrase (BM25's terms, in any order). */
  phraseSearch(request: { readonly revisions: readonly RevisionId[]; readonly phrases: readonly string[] }): Promise<readonly Passage[]>;
  /** The stored body of any revision ever ingested, for verification and audits. */
  revisionBody(revision: RevisionId): Promise<string | null>;
  /** Every passage of any revision ever ingested, in body order. */
  passagesOf(revision: RevisionId): Promise<readonly Passage[]>;
  /** Every stored revision and passage row as written (no vectors), unparsed, for `verify --index`. */
  evidence(): Promise<IndexEvidence>;
  close(): void;
}

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

const PASSAGE_COLUMNS = ['chunk_id', 'revision', 'source_id', 'start', 'end', 'text', 'headings'];
/**
 * A LanceDB or schema failure while reading the index (a flipped byte, a truncated file, a row
 * that is not what ingest writes) as one line: INDEX_CORRUPT, exit 2, never a panic or a trace.
 */
function unreadable(where: string, error: unknown): CitetraceError {
  if (error instanceof CitetraceError) return error;
  const detail = (error instanceof Error ? error.message : String(error)).split('\n').find((line) => line.trim() !== '') ?? 'unknown error';
  return new CitetraceError('INDEX_CORRUPT', `index in ${where} cannot be read (${detail.trim().slice(0, 300)}); restore the data folder from a backup or re-ingest into a new one`, { cause: error });
}

// LanceDB wants its score column named when a search selects columns.
const VECTOR_COLUMNS = [...PASSAGE_COLUMNS, '_distance'];

/**
 * The in-process vector search (memory-vectors.ts): `background` builds it after opening and
 * searches LanceDB until it is ready (same results either way), `eager` builds it before returning,
 * `off` never (ingest, verify).
 */
export type InProcessSearch = 'off' | 'background' | 'eager';

/** Open the committed snapshot of a local data folder or of an index on object storage. */
export async function openPolicyIndex(options: { readonly dataDir: IndexAt; readonly inProcess?: InProcessSearch }): Promise<PolicyIndex> {
  const location = locate(options.dataDir);
  try {
    return await openIndex(location, options.inProcess ?? 'off');
  } catch (error) {
    throw unreadable(location.where, error);
  }
}

/** Every passage row of the snapshot, in table order, with these columns beside the passage's own. */
async function passageRows(table: lancedb.Table, extra: readonly string[]): Promise<{ readonly row: Record<string, unknown>; readonly passage: Passage }[]> {
  const rows = (await table.query().select([...PASSAGE_COLUMNS, ...extra]).toArray()) as Record<string, unknown>[];
  return rows.map((row) => ({ row, passage: toPassage(row) }));
}

type PassageRows = Awaited<ReturnType<typeof passageRows>>;

/** Every passage, with its vector, of the revisions that can be in force (approved and present), in table order. */
function memoryVectorsOf(rows: PassageRows, covered: ReadonlySet<string>): Promise<MemoryVectorSearch> {
  const kept = rows.filter(({ passage }) => covered.has(passage.revision));
  const first = kept[0]?.row.vector as { toArray(): Float32Array } | undefined;
  const dimensions = first === undefined ? 0 : first.toArray().length;
  const vectors = new Float32Array(kept.length * dimensions);
  kept.forEach(({ row }, i) => {
    vectors.set((row.vector as { toArray(): Float32Array }).toArray(), i * dimensions);
  });
  return createMemoryVectorSearch({ revisions: covered, passages: kept.map(({ passage }) => passage), vectors, dimensions });
}

/** The BM25 structure of every passage of the snapshot, in table order (its statistics are over all of them). */
const memoryTextOf = (rows: PassageRows): MemoryTextSearch => createMemoryTextSearch(rows.map(({ row, passage }) => ({ passage, searchText: String(row.search_text) })));

async function openIndex(location: IndexLocation, inProcess: InProcessSearch): Promise<PolicyIndex> {
  const manifest = await readManifest(location);
  if (manifest === null) {
    throw new CitetraceError('INDEX_EMPTY', `no index in ${location.where}: run \`citetrace ingest DIR\` first`);
  }
  const db = await location.connect();
  const revisionsTable = await db.openTable(REVISIONS_TABLE);
  const passagesTable = await db.openTable(PASSAGES_TABLE);
  await revisionsTable.checkout(manifest.tables.revisions);
  await passagesTable.checkout(manifest.tables.passages);
  const revisionFields = await revisionsTable.schema();
  const withOrdinals = hasField(revisionFields, REVISION_ORDINAL) && hasField(await passagesTable.schema(), PASSAGE_ORDINAL);
  const metaColumns = revisionFields.fields.map((f) => f.name).filter((name) => name !== 'body' && name !== FRONT_MATTER);
  const metaRows = await revisionsTable.query().select(metaColumns).toArray();
  const revisions = new Map<RevisionId, RevisionMeta>();
  const ordinals = new Map<RevisionId, number>();
  for (const row of metaRows as Record<string, unknown>[]) {
    const meta = toRevisionMeta(row);
    revisions.set(meta.revision, meta);
    if (withOrdinals) ordinals.set(meta.revision, Number(row[REVISION_ORDINAL]));
  }
  const ordinalOf = withOrdinals ? ordinals : null;
  // The hybrid retriever passes one array to both searches: build its scope once.
  const scopes = new WeakMap<readonly RevisionId[], Scope>();
  const scopeOf = (allowed: readonly RevisionId[]): Scope => {
    let scope = scopes.get(allowed);
    if (scope === undefined) {
      let filter: string | null | undefined;
      scope = {
        allowed: new Set(allowed),
        share: allowed.length / Math.max(1, revisions.size),
        filter: () => (filter === undefined ? (filter = allowedFilter(allowed, ordinalOf)) : filter),
      };
      scopes.set(allowed, scope);
    }
    return scope;
  };
  const vectorMethod = await vectorMethodOf(passagesTable);
  const present = new Set(manifest.present);
  // A snapshot never changes, so the in-force set for a role and date is computed once, not per question.
  const inForceCache = new Map<string, ReadonlyMap<SourceId, RevisionMeta>>();
  // Full-text search is always in process (its scores are citetrace's own BM25): built from the same
  // read of the table as the vectors when those are built, else at the first search; a failed build
  // is retried by the next search.
  let text: Promise<MemoryTextSearch> | null = null;
  const textFrom = (rows: Promise<PassageRows>): Promise<MemoryTextSearch> =>
    (text = rows.then(memoryTextOf).catch((error: unknown) => {
      text = null;
      throw error;
    }));
  const textIndex = (): Promise<MemoryTextSearch> => text ?? textFrom(passageRows(passagesTable, ['search_text']));
  let memory: MemoryVectorSearch | null = null;
  if (inProcess !== 'off') {
    const covered = new Set([...revisions.values()].filter((r) => r.status === 'approved' && present.has(r.revision)).map((r) => r.revision as string));
    const rows = passageRows(passagesTable, ['vector', 'search_text']);
    const building = rows
      .then((read) => memoryVectorsOf(read, covered))
      .then((built) => {
        memory = built;
      });
    const textBuilding = textFrom(rows);
    // A failed vector build leaves LanceDB serving every vector search, as before it was built.
    if (inProcess === 'eager') await Promise.all([building, textBuilding]);
    else {
      building.catch(() => undefined);
      textBuilding.catch(() => undefined);
    }
  }
  const memoryCovers = new WeakMap<Scope, boolean>();
  const inMemory = (scope: Scope): MemoryVectorSearch | null => {
    if (memory === null) return null;
    let covers = memoryCovers.get(scope);
    if (covers === undefined) memoryCovers.set(scope, (covers = memory.covers(scope.allowed)));
    return covers ? memory : null;
  };
  const guard = <T>(work: Promise<T>): Promise<T> => work.catch((error: unknown) => Promise.reject(unreadable(location.where, error)));

  return {
    manifest,
    snapshotId: snapshotIdOf(manifest),
    revisions,
    vectorMethod,
    inForce: ({ role, asOf }) => {
      const key = `${role}@${asOf}`;
      let chosen = inForceCache.get(key);
      if (chosen === undefined) {
        chosen = selectInForce(revisions.values(), { role, asOf, present });
        inForceCache.set(key, chosen);
      }
      return chosen;
    },
    async vectorSearch({ vector, revisions: allowed, limit, exact: exactOnly }) {
      if (allowed.length === 0) return [];
      const scope = scopeOf(allowed);
      const local = inMemory(scope);
      if (local !== null) return local.search({ vector, allowed: scope.allowed, limit });
      const search = (n: number, where: string | null, exact: boolean): Promise<Record<string, unknown>[]> => {
        let query = passagesTable.vectorSearch(vector).distanceType('cosine');
        if (where !== null) query = query.where(where);
        query = exact ? query.bypassVectorIndex() : query.ef(Math.max(HNSW_EF, n * HNSW_REFINE)).refineFactor(HNSW_REFINE);
        return query.select(VECTOR_COLUMNS).limit(n).toArray() as Promise<Record<string, unknown>[]>;
      };
      const exact = vectorMethod === 'flat' || exactOnly === true;
      const rows = await allowedTop(scope, limit, MAX_UNFILTERED_VECTOR, (n) => search(n, null, exact), async (filter) => {
        const found = await search(limit, filter, exact);
        // A narrow filter can leave the graph search short of candidates that exist: search exactly.
        return found.length < limit && !exact ? search(limit, filter, true) : found;
      });
      return rows.map((row) => ({ passage: toPassage(row), score: 1 - Number(row._distance) }));
    },
    async textSearch({ query, revisions: allowed, limit }) {
      if (allowed.length === 0) return [];
      return (await guard(textIndex())).search({ query, allowed: scopeOf(allowed).allowed, limit });
    },
    async phraseSearch({ phrases, revisions: allowed }) {
      if (allowed.length === 0 || phrases.length === 0) return [];
      return (await guard(textIndex())).containing({ phrases, allowed: scopeOf(allowed).allowed });
    },
    async revisionBody(revision) {
      const rows = (await guard(
        revisionsTable.query().where(`revision = '${RevisionIdSchema.parse(revision)}'`).select(['body']).limit(1).toArray(),
      )) as Record<string, unknown>[];
      return rows[0] === undefined ? null : String(rows[0].body);
    },
    async passagesOf(revision) {
      const rows = (await guard(
        passagesTable.query().where(`revision = '${RevisionIdSchema.parse(revision)}'`).select(PASSAGE_COLUMNS).toArray(),
      )) as Record<string, unknown>[];
      return rows.map(toPassage).sort((a, b) => a.start - b.start);
    },
    async evidence() {
      const [revisionRows, passageRows] = await guard(
        Promise.all([revisionsTable.query().toArray(), passagesTable.query().select(EVIDENCE_PASSAGE_COLUMNS).toArray()]),
      );
      return { revisions: (revisionRows as Record<string, unknown>[]).map(toStoredRevision), passages: (passageRows as Record<string, unknown>[]).map(toStoredPassage) };
    },
    close() {
      revisionsTable.close();
      passagesTable.close();
      db.close();
    },
  };
}
