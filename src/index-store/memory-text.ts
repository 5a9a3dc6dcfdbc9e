import { stem } from 'porter2';
import type { Passage } from '../domain/index.js';

/**
 * citetrace's own BM25, in process, over one index snapshot. It replaced LanceDB's full-text search
 * (session 20), whose scores could not be reproduced anywhere else: lance computes the idf in float32
 * through the C library's `logf`, which glibc dispatches to a CPU-specific variant, and breaks ties
 * in the order of its top-k heap. Here every step is stated, so a trace's text scores are the same on
 * every machine and a replay can recompute them:
 *
 * - **Terms** (`analyze`): the text in NFKC, split into maximal runs of letters and digits; a run
 *   of 40 UTF-8 bytes or more is dropped; lower case; accents removed (NFKD, combining marks dropped);
 *   Snowball English stem (`porter2`); Lucene's 33 English stop words dropped after stemming. This is
 *   the analysis LanceDB's index was built with (lance 0.31: simple tokenizer, remove-long 40,
 *   lower case, ASCII folding, English stemmer and stop words), so the terms and counts are the same.
 * - **Statistics** over every passage of the snapshot, whatever its revision's status (as LanceDB's
 *   index had them): N passages, the mean passage length in terms, each term's passage count n.
 * - **Score** of a passage for the distinct terms of the query, in double precision with `Math.log`:
 *   Σ ln(1 + (N − n + 0.5) / (n + 0.5)) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / mean)),
 *   k1 = 1.2, b = 0.75. Within float32 rounding of LanceDB's scores (test/memory-text.test.ts).
 * - **Order**: score descending, then table order; passages without a query term are not returned.
 */
export const TEXT_SEARCH_ID = 'bm25-f64(k1=1.2,b=0.75,porter2,lucene-stop)';

const K1 = 1.2;
const B = 0.75;
const MAX_TERM_BYTES = 40;
/** Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), compared with stemmed terms. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

const encoder = new TextEncoder();
/** Stems are memoised: a corpus has a few thousand distinct words and stemming is most of the cost. */
const stems = new Map<string, string | null>();
const MAX_MEMOISED = 200_000;

function termOf(run: string): string | null {
  let term = stems.get(run);
  if (term === undefined) {
    const folded = run.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
    const stemmed = encoder.encode(run).length >= MAX_TERM_BYTES || folded === '' ? null : stem(folded);
    term = stemmed === null || STOP_WORDS.has(stemmed) ? null : stemmed;
    if (stems.size >= MAX_MEMOISED) stems.clear();
    stems.set(run, term);
  }
  return term;
}

/** The terms of a text, in order, repeats kept. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const run of text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []) {
    const term = termOf(run);
    if (term !== null) terms.push(term);
  }
  return terms;
}

export interface TextRow {
  readonly passage: Passage;
  /** What the passage is searched under: its page title, headings and text (`searchTextOf`). */
  readonly searchText: string;
}

export interface MemoryTextSearch {
  readonly size: number;
  search(request: { readonly query: string; readonly allowed: ReadonlySet<string>; readonly limit: number }): readonly { readonly passage: Passage; readonly score: number }[];
  /** The passages of the allowed revisions, in table order, whose search text holds every term of at least one phrase (in any order). */
  containing(request: { readonly phrases: readonly string[]; readonly allowed: ReadonlySet<string> }): readonly Passage[];
}

/** Postings of one term while they are gathered: passage positions in table order and the term's count in each. */
interface Postings {
  readonly docs: number[];
  readonly counts: number[];
}

/** Postings of one term once the snapshot is read: each passage's share of the score, computed when the structure is built. */
interface Impacts {
  readonly docs: Int32Array;
  /** idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / mean)), the same expression, in the same order, as a search would compute it. */
  readonly impacts: Float64Array;
}

/** The BM25 structure of every passage of one snapshot, in table order; read-only once built. */
export function createMemoryTextSearch(rows: readonly TextRow[]): MemoryTextSearch {
  const postings = new Map<string, Postings>();
  const lengths = new Float64Array(rows.length);
  let total = 0;
  rows.forEach((row, doc) => {
    const counts = new Map<string, number>();
    for (const term of analyze(row.searchText)) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      let p = postings.get(term);
      if (p === undefined) postings.set(term, (p = { docs: [], counts: [] }));
      p.docs.push(doc);
      p.counts.push(count);
    }
    const length = [...counts.values()].reduce((a, c) => a + c, 0);
    lengths[doc] = length;
    total += length;
  });
  const n = rows.length;
  const mean = n === 0 ? 0 : total / n;
  const norms = lengths.map((length) => K1 * (1 - B + (B * length) / mean));
  const impactsOf = new Map<string, Impacts>();
  for (const [term, p] of postings) {
    const idf = Math.log(1 + (n - p.docs.length + 0.5) / (p.docs.length + 0.5));
    const impacts = new Float64Array(p.docs.length);
    p.docs.forEach((doc, i) => {
      const tf = p.counts[i] as number;
      impacts[i] = (idf * tf * (K1 + 1)) / (tf + (norms[doc] as number));
    });
    impactsOf.set(term, { docs: Int32Array.from(p.docs), impacts });
  }
  postings.clear();
  // Which passages a set of allowed revisions lets through, per set (the retriever keeps one set per scope).
  const masks = new WeakMap<ReadonlySet<string>, Uint8Array>();
  const maskOf = (allowed: ReadonlySet<string>): Uint8Array => {
    let mask = masks.get(allowed);
    if (mask === undefined) {
      mask = new Uint8Array(n);
      rows.forEach((row, doc) => {
        if (allowed.has(row.passage.revision)) (mask as Uint8Array)[doc] = 1;
      });
      masks.set(allowed, mask);
    }
    return mask;
  };
  // One score per passage, zero except while a search runs (a search is synchronous, so one array serves every search).
  const scores = new Float64Array(n);
  return {
    size: n,
    search({ query, allowed, limit }) {
      if (limit <= 0) return [];
      const mask = maskOf(allowed);
      const touched: number[] = [];
      for (const term of new Set(analyze(query))) {
        const p = impactsOf.get(term);
        if (p === undefined) continue;
        const { docs, impacts } = p;
        for (let i = 0; i < docs.length; i += 1) {
          const doc = docs[i] as number;
          if (mask[doc] === 0) continue;
          if (scores[doc] === 0) touched.push(doc);
          scores[doc] = (scores[doc] as number) + (impacts[i] as number);
        }
      }
      const best = bestOf(touched, scores, limit).map((doc) => ({ passage: (rows[doc] as TextRow).passage, score: scores[doc] as number }));
      for (const doc of touched) scores[doc] = 0;
      return best;
    },
    containing({ phrases, allowed }) {
      const mask = maskOf(allowed);
      const found = new Set<number>();
      for (const phrase of phrases) {
        const lists = [...new Set(analyze(phrase))].map((term) => impactsOf.get(term)?.docs);
        if (lists.length === 0 || lists.some((docs) => docs === undefined)) continue;
        // The rarest term's passages, kept where every other term occurs too (postings are in table order).
        const [rarest, ...rest] = (lists as Int32Array[]).sort((a, b) => a.length - b.length);
        for (const doc of rarest as Int32Array) if (mask[doc] === 1 && rest.every((docs) => holds(docs, doc))) found.add(doc);
      }
      return [...found].sort((a, b) => a - b).map((doc) => (rows[doc] as TextRow).passage);
    },
  };
}

/** Whether ascending postings hold a passage: binary search. */
function holds(docs: Int32Array, doc: number): boolean {
  let [lo, hi] = [0, docs.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = docs[mid] as number;
    if (at === doc) return true;
    if (at < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The `limit` best passages by score, then table order, without sorting every match: a bounded heap, worst on top. */
function bestOf(docs: readonly number[], scores: Float64Array, limit: number): number[] {
  const worse = (a: number, b: number): boolean => (scores[a] as number) < (scores[b] as number) || (scores[a] === scores[b] && a > b);
  const heap: number[] = [];
  const swap = (i: number, j: number): void => {
    [heap[i], heap[j]] = [heap[j] as number, heap[i] as number];
  };
  for (const doc of docs) {
    if (heap.length === limit && !worse(heap[0] as number, doc)) continue;
    if (heap.length === limit) {
      heap[0] = doc;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let top = i;
        if (l < heap.length && worse(heap[l] as number, heap[top] as number)) top = l;
        if (r < heap.length && worse(heap[r] as number, heap[top] as number)) top = r;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    } else {
      heap.push(doc);
      for (let i = heap.length - 1; i > 0 && worse(heap[i] as number, heap[(i - 1) >> 1] as number); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
