import { CitetraceError, matchesMentioned, type RevisionId } from '../domain/index.js';
import type { Embedder } from '../embed/index.js';
import { TEXT_SEARCH_ID, type PassageMatch, type PolicyIndex } from '../index-store/index.js';
import { dayPhrases, statesDay } from '../policy/index.js';
import { reciprocalRankFusion, RRF_K } from './fusion.js';
import type { Hit, RetrievalRequest, Retriever } from './retriever.js';

export type RetrievalMode = 'hybrid' | 'vector' | 'fts';

/** Distinct (role, date, entities) scopes remembered; a day's questions need a handful. */
const MAX_SCOPES = 256;

/** Passages stating an asked day added after the fused candidates, at most (candidate DR, docs/support-judge.md). */
const DAY_PASSAGES = 4;

/**
 * LanceDB vector search (cosine over MiniLM) and citetrace's BM25 full-text search, both restricted
 * to the in-force revisions the role may see (and, when the question names a clinic, to that
 * clinic's or system-wide revisions), fused by reciprocal rank fusion. Then, for a question about
 * single days, the passages of the same revisions that state one of them (a holiday table's row for
 * December 24, which shares no word with "open on christmas eve?"), in table order, as the `day`
 * component: words and meaning alike rank a site's regular pages above the page about that day.
 */
export function createHybridRetriever(options: {
  readonly index: PolicyIndex;
  readonly embedder: Embedder;
  readonly mode?: RetrievalMode;
  /** Candidates drawn from each retriever before fusion. */
  readonly depth?: number;
}): Retriever {
  const { index, embedder } = options;
  const mode = options.mode ?? 'hybrid';
  const depth = options.depth ?? 20;
  // One array per role, date and named entities: the index then prepares its search scope once.
  const scopes = new Map<string, readonly RevisionId[]>();
  const allowedFor = ({ role, asOf, entities }: RetrievalRequest): readonly RevisionId[] => {
    const key = JSON.stringify([role, asOf, entities]);
    let revisions = scopes.get(key);
    if (revisions === undefined) {
      if (scopes.size >= MAX_SCOPES) scopes.clear();
      revisions = [...index.inForce({ role, asOf }).values()].filter((r) => matchesMentioned(r.entities, entities)).map((r) => r.revision);
      scopes.set(key, revisions);
    }
    return revisions;
  };
  /** `fusedNames`: the ranked lists fused, each a null component of a day's passage. */
  const statingDays = async (request: RetrievalRequest, revisions: readonly RevisionId[], fused: readonly Hit[], fusedNames: readonly string[]): Promise<Hit[]> => {
    const days = [...new Set(request.days ?? [])];
    if (days.length === 0) return [];
    const taken = new Set(fused.map((h) => h.passage.chunkId as string));
    const found = await index.phraseSearch({ revisions, phrases: days.flatMap(dayPhrases) });
    const none = Object.fromEntries(fusedNames.map((name) => [name, null]));
    return found
      .filter((p) => !taken.has(p.chunkId) && days.some((day) => statesDay(p.text, day, request.asOf)))
      .slice(0, DAY_PASSAGES)
      .map((passage, i) => {
        const revision = index.revisions.get(passage.revision);
        if (revision === undefined) throw new CitetraceError('INTERNAL', `passage ${passage.chunkId} has no revision`);
        return { passage, revision, score: 0, rank: fused.length + i + 1, components: { ...none, day: { score: 1, rank: i + 1 } } };
      });
  };
  return {
    id: `${mode}(vector=lancedb-cosine${index.vectorMethod === 'flat' ? '' : `+${index.vectorMethod}`}:${embedder.modelId},fts=${TEXT_SEARCH_ID},fusion=rrf-k${RRF_K},depth=${depth},days=named(${DAY_PASSAGES}))`,
    async retrieve(request: RetrievalRequest): Promise<readonly Hit[]> {
      const revisions = allowedFor(request);
      const limit = Math.max(depth, request.limit);
      const [vector, text] = await Promise.all([
        mode === 'fts'
          ? Promise.resolve([] as readonly PassageMatch[])
          : embedder.embed({ texts: [request.query], ...(request.signal ? { signal: request.signal } : {}) }).then(([v]) => {
              if (v === undefined) throw new CitetraceError('INTERNAL', 'embedder returned no vector');
              return index.vectorSearch({ vector: v, revisions, limit });
            }),
        mode === 'vector' ? Promise.resolve([] as readonly PassageMatch[]) : index.textSearch({ query: request.query, revisions, limit }),
      ]);
      const byChunk = new Map([...vector, ...text].map((m) => [m.passage.chunkId as string, m.passage]));
      const lists = [
        ...(mode === 'fts' ? [] : [{ name: 'vector', items: vector.map((m) => ({ key: m.passage.chunkId, score: m.score })) }]),
        ...(mode === 'vector' ? [] : [{ name: 'fts', items: text.map((m) => ({ key: m.passage.chunkId, score: m.score })) }]),
      ];
      const fused = reciprocalRankFusion(lists)
        .slice(0, request.limit)
        .map((item, i): Hit => {
          const passage = byChunk.get(item.key);
          const revision = passage === undefined ? undefined : index.revisions.get(passage.revision);
          if (passage === undefined || revision === undefined) throw new CitetraceError('INTERNAL', `fused hit ${item.key} has no passage`);
          return { passage, revision, score: item.score, rank: i + 1, components: item.components };
        });
      return [...fused, ...(await statingDays(request, revisions, fused, lists.map((l) => l.name)))];
    },
  };
}
