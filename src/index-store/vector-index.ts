import * as lancedb from '@lancedb/lancedb';

/**
 * When the passages table gets an approximate-nearest-neighbour index, and how it is searched.
 *
 * Measured on this project's 2-core machine (bench/scale.ts, 10k generated passages, in-force
 * prefilter of ~1,800 revisions): exact (flat) cosine search costs ~25 ms however selective the
 * filter, because every vector is read and compared; HNSW with 8-bit scalar quantization
 * (HNSW_SQ) answers in ~5 ms with recall@10 of 1.000 against flat search under the same
 * prefilter, including clinic-restricted filters (~6% of rows). Quantized distances are off by
 * up to 0.6, so the top candidates are re-ranked on their full vectors (refine factor): the
 * scores recorded in traces stay exact cosine similarities.
 *
 * Allowed revisions are usually most of the table, and then the search runs unfiltered and
 * rows of other revisions are dropped after it (see allowedTop in filters.ts); a narrow
 * scope is prefiltered by LanceDB inside the index search, exactly as for flat search.
 */
export interface VectorIndexPolicy {
  /** Below this many passages, flat search is fast enough and exact; no index is built. */
  readonly minRows: number;
  /**
   * Rows appended after the index was built are searched exactly (flat) and merged by LanceDB;
   * the index is rebuilt once they exceed this share of the indexed rows (or 1,000 rows, if more),
   * so a `watch` edit does not pay a full rebuild.
   */
  readonly maxUnindexedShare: number;
}

export const DEFAULT_VECTOR_INDEX: VectorIndexPolicy = { minRows: 4096, maxUnindexedShare: 0.05 };

/** Name of the vector search method, for the retriever id recorded in traces. */
export type VectorMethod = 'flat' | 'hnsw-sq';

/** HNSW query settings: candidate list size, and re-ranking of refine x limit candidates on full vectors. */
export const HNSW_EF = 100;
export const HNSW_REFINE = 2;

async function vectorIndexOf(table: lancedb.Table): Promise<lancedb.IndexConfig | undefined> {
  return (await table.listIndices()).find((i) => i.columns.includes('vector'));
}

/** The method vector search uses on this (checked-out) table version. */
export async function vectorMethodOf(table: lancedb.Table): Promise<VectorMethod> {
  return (await vectorIndexOf(table)) === undefined ? 'flat' : 'hnsw-sq';
}

/** Build or rebuild the vector index after rows were appended, per the policy. Returns what was done. */
export async function maintainVectorIndex(table: lancedb.Table, policy: VectorIndexPolicy): Promise<'none' | 'built' | 'kept'> {
  const rows = await table.countRows();
  if (rows < policy.minRows) return 'none';
  const existing = await vectorIndexOf(table);
  if (existing !== undefined) {
    const stats = await table.indexStats(existing.name);
    if (stats !== undefined && stats.numUnindexedRows <= Math.max(1000, stats.numIndexedRows * policy.maxUnindexedShare)) return 'kept';
  }
  await table.createIndex('vector', { config: lancedb.Index.hnswSq({ distanceType: 'cosine' }), replace: true });
  return 'built';
}

/**
 * A BTREE index on the passages' revision ordinal on large tables: LanceDB then resolves the
 * `rev_ordinal IN (...)` prefilter from the index instead of evaluating it on every row, which
 * took ~25-35% off both searches at 10k passages (HNSW 8.6 -> 6.5 ms CPU, BM25 7.3 -> 4.6 ms).
 * Rows appended later are filtered by scanning, as before; the index is rebuilt with the vector one.
 */
export async function maintainOrdinalIndex(table: lancedb.Table, column: string, policy: VectorIndexPolicy): Promise<void> {
  if ((await table.countRows()) < policy.minRows) return;
  await table.createIndex(column, { config: lancedb.Index.btree(), replace: true });
}
