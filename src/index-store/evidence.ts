import type { Revision } from '../domain/index.js';
import { FRONT_MATTER, type PassageRow } from './schema.js';

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

/** A passages row as stored, without its vector, search text and headings. */
export type StoredPassageRow = Omit<PassageRow, 'headings' | 'rev_ordinal' | 'search_text' | 'vector'>;

/** The metadata a passage row repeats from its revision. */
export type PassageFacts = Pick<StoredPassageRow, 'source_id' | 'version' | 'status' | 'effective_date' | 'audience' | 'entity_tags' | 'title'>;
/** The metadata a revision row stores from its revision (what its hashed front matter and body give). */
export type RevisionFacts = Omit<StoredRevisionRow, 'revision' | 'path' | 'front_matter' | 'ingest_seq'>;

/** A revision's row columns: what a commit writes and what verify recomputes from the hashed text. */
export function revisionFacts(rev: Revision): RevisionFacts {
  return {
    source_id: rev.sourceId,
    title: rev.title,
    status: rev.status,
    effective_date: rev.effectiveDate,
    version: rev.version,
    review_by: rev.reviewBy,
    owner: rev.owner,
    audience: [...rev.audience],
    entities: JSON.stringify(rev.entities),
    body: rev.body,
  };
}

/** The revision metadata every passage row of a revision repeats. */
export function passageFacts(rev: Revision): PassageFacts {
  return {
    source_id: rev.sourceId,
    version: rev.version,
    status: rev.status,
    effective_date: rev.effectiveDate,
    audience: [...rev.audience],
    entity_tags: Object.entries(rev.entities).map(([k, v]) => `${k}=${v}`),
    title: rev.title,
  };
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
