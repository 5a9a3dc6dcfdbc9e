/**
 * LanceDB's own BM25, as citetrace used it until session 20 (src/index-store/memory-text.ts replaced
 * it): the reference that test/memory-text.test.ts and bench/search-paths.ts compare citetrace's BM25
 * with. Nothing in src/ uses it.
 */
import * as lancedb from '@lancedb/lancedb';
import { localIndex } from '../src/index-store/index.js';

export interface LanceBm25Row extends Record<string, unknown> {
  readonly chunk_id: string;
  readonly revision: string;
  readonly _score: number;
}

/** A data folder's passages table with a LanceDB BM25 index on its search text, built with the options ingest used (when it has none). */
export async function lanceBm25Table(dataDir: string): Promise<lancedb.Table> {
  const table = await (await localIndex(dataDir).connect()).openTable('passages');
  if (!(await table.listIndices()).some((i) => i.columns.includes('search_text'))) {
    await table.createIndex('search_text', {
      config: lancedb.Index.fts({ withPosition: false, stem: true, removeStopWords: true, language: 'English', asciiFolding: true, lowercase: true }),
    });
  }
  return table;
}

/** LanceDB's BM25 top `limit` for a question, given as plain words (as citetrace did, so no query syntax can break it), within a filter. */
export function lanceBm25(table: lancedb.Table, question: string, limit: number, where: string | null = null): Promise<LanceBm25Row[]> {
  const words = (question.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
  const query = table.query().fullTextSearch(words, { columns: 'search_text' });
  return (where === null ? query : query.where(where)).select(['chunk_id', 'revision', '_score']).limit(limit).toArray() as Promise<LanceBm25Row[]>;
}
