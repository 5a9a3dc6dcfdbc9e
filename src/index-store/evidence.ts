import { FRONT_MATTER } from './schema.js';

/** A revisions row as stored: checked against its own hashed text, so nothing in it is trusted or parsed. */
export interface StoredRevisionRow {
  readonly revision: string;
  readonly source_id: string;
  readonly title: string;
  readonly status: string;
  readonly effective_date: string;
  readonly version: string | null;
  readonly review_by: string | null;
  readonly owner: string | null;
  readonly audience: readonly string[];
  readonly entities: string;
  readonly path: string;
  readonly body: string;
  /** Null in an index written before front matter was kept. */
  readonly front_matter: string | null;
  readonly ingest_seq: number;
}

/** A passages row as stored, without its vector and search text. */
export interface StoredPassageRow {
  readonly chunk_id: string;
  readonly revision: string;
  readonly source_id: string;
  readonly version: string | null;
  readonly status: string;
  readonly effective_date: string;
  readonly audience: readonly string[];
  readonly entity_tags: readonly string[];
  readonly title: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface IndexEvidence {
  readonly revisions: readonly StoredRevisionRow[];
  readonly passages: readonly StoredPassageRow[];
}

/** Arrow list cells (LanceDB returns them as iterable vectors) as plain string arrays. */
export const strings = (value: unknown): string[] => (value === null || value === undefined ? [] : Array.from(value as Iterable<string>));
export const nullableString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const EVIDENCE_PASSAGE_COLUMNS = ['chunk_id', 'revision', 'source_id', 'version', 'status', 'effective_date', 'audience', 'entity_tags', 'title', 'start', 'end', 'text'];

export function toStoredRevision(row: Record<string, unknown>): StoredRevisionRow {
  return {
    revision: String(row.revision),
    source_id: String(row.source_id),
    title: String(row.title),
    status: String(row.status),
    effective_date: String(row.effective_date),
    version: nullableString(row.version),
    review_by: nullableString(row.review_by),
    owner: nullableString(row.owner),
    audience: strings(row.audience),
    entities: String(row.entities),
    path: String(row.path),
    body: String(row.body),
    front_matter: nullableString(row[FRONT_MATTER]),
    ingest_seq: Number(row.ingest_seq),
  };
}

export function toStoredPassage(row: Record<string, unknown>): StoredPassageRow {
  return {
    chunk_id: String(row.chunk_id),
    revision: String(row.revision),
    source_id: String(row.source_id),
    version: nullableString(row.version),
    status: String(row.status),
    effective_date: String(row.effective_date),
    audience: strings(row.audience),
    entity_tags: strings(row.entity_tags),
    title: String(row.title),
    start: Number(row.start),
    end: Number(row.end),
    text: String(row.text),
  };
}
