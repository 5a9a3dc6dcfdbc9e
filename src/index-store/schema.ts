import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';

// The same CommonJS apache-arrow that @lancedb/lancedb requires: one copy of its classes in the
// process (the ESM entry would load a second copy of ~130 modules, about 90 ms at every start).
const { Field, FixedSizeList, Float32, Int32, List, Schema, Utf8 } = createRequire(import.meta.url)('apache-arrow') as typeof Arrow;
type Field = Arrow.Field;
type Schema = Arrow.Schema;

const text = (name: string, nullable = false): Field => new Field(name, new Utf8(), nullable);
const texts = (name: string): Field => new Field(name, new List(new Field('item', new Utf8(), true)), false);

export const REVISIONS_TABLE = 'revisions';
export const PASSAGES_TABLE = 'passages';
export const REVISION_ORDINAL = 'ordinal';
export const PASSAGE_ORDINAL = 'rev_ordinal';
export const FRONT_MATTER = 'front_matter';

/** One row per revision, keyed by content hash; never updated, never deleted. */
export const revisionsSchema = new Schema([
  text('revision'),
  text('source_id'),
  text('title'),
  text('status'),
  text('effective_date'),
  text('version', true),
  text('review_by', true),
  text('owner', true),
  texts('audience'),
  text('entities'),
  text('path'),
  text('body'),
  new Field('ingest_seq', new Int32(), false),
  text('ingested_at'),
  /**
   * A small integer naming the revision inside this index (1, 2, 3, ... in ingest order), copied
   * to its passages as rev_ordinal: the in-force prefilter is `rev_ordinal IN (...)` over integers
   * instead of thousands of 71-character revision ids. Indexes written before it lack both
   * columns and keep filtering on `revision`.
   */
  new Field('ordinal', new Int32(), false),
  /**
   * The file's text before the body, so that front_matter + body hashes to `revision` and the
   * metadata columns can be checked against it (`verify --index`). Indexes written before it lack
   * the column; their revisions are reported as unverifiable.
   */
  text(FRONT_MATTER, true),
]);

/** One row per passage with its vector and the revision facts retrieval filters on. */
export function passagesSchema(dimensions: number): Schema {
  return new Schema([
    text('chunk_id'),
    text('revision'),
    text('source_id'),
    text('version', true),
    text('status'),
    text('effective_date'),
    texts('audience'),
    texts('entity_tags'),
    text('title'),
    texts('headings'),
    new Field('rev_ordinal', new Int32(), false),
    new Field('start', new Int32(), false),
    new Field('end', new Int32(), false),
    text('text'),
    text('search_text'),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

export interface PassageRow {
  readonly chunk_id: string;
  readonly revision: string;
  readonly source_id: string;
  readonly version: string | null;
  readonly status: string;
  readonly effective_date: string;
  readonly audience: readonly string[];
  readonly entity_tags: readonly string[];
  readonly title: string;
  readonly headings: readonly string[];
  readonly rev_ordinal?: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly search_text: string;
  readonly vector: readonly number[];
}
