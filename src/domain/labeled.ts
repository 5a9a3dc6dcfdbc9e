import type { Passage, RevisionMeta } from './policy.js';

/** A passage as offered to a generator: "S1", "S2", ... in rank order. */
export interface LabeledPassage {
  readonly label: string;
  readonly passage: Passage;
  readonly revision: RevisionMeta;
}

export function labelOf(index: number): string {
  return `S${index + 1}`;
}
