import type { EntityMentions, IsoDate, Passage, RevisionMeta, Role } from '../domain/index.js';

export interface RetrievalRequest {
  readonly query: string;
  readonly role: Role;
  readonly asOf: IsoDate;
  /** Entity values the question names: only revisions tagged with them, or untagged, are ranked. */
  readonly entities: EntityMentions;
  /** How many candidates to return, best first. */
  readonly limit: number;
  /** Single days the question asks about: passages stating one are candidates too, wherever they would rank. */
  readonly days?: readonly IsoDate[];
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
 * apply access and in-force filters before ranking anything.
 */
export interface Retriever {
  /** Goes into every trace's config. */
  readonly id: string;
  retrieve(request: RetrievalRequest): Promise<readonly Hit[]>;
}
