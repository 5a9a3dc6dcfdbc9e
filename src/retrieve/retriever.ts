import type { EntityMentions, IsoDate, Passage, RevisionMeta, Role } from '../domain/index.js';

export interface RetrievalRequest {
  readonly query: string;
  readonly role: Role;
  readonly asOf: IsoDate;
  /** Entity values the question names: only revisions tagged with them, or untagged, are ranked. */
  readonly entities: EntityMentions;
  /** How many candidates to return, best first. */
  readonly limit: number;
  /** The query's embedding when the caller already has it (scope routing embeds the question first); otherwise the retriever embeds it. */
  readonly vector?: Float32Array;
  readonly signal?: AbortSignal;
}

/** A revision-pinned candidate: the passage, the revision it belongs to, and why it ranked. */
export interface Hit {
  readonly passage: Passage;
  readonly revision: RevisionMeta;
  readonly score: number;
  readonly rank: number;
  readonly components: Readonly<Record<string, { readonly score: number; readonly rank: number } | null>>;
}

/**
 * Ranks passages of the revisions in force for the role on the date. Implementations must
 * return only passages of those revisions, and the best of them: the top hits among the allowed
 * passages, never a top k cut before the access and in-force restriction.
 */
export interface Retriever {
  /** Goes into every trace's config. */
  readonly id: string;
  retrieve(request: RetrievalRequest): Promise<readonly Hit[]>;
}
