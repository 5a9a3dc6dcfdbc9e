import { CitetraceError, matchesMentioned, type RevisionId } from '../domain/index.js';
import type { Embedder } from '../embed/index.js';
import { TEXT_SEARCH_ID, type PassageMatch, type PolicyIndex } from '../index-store/index.js';
import { reciprocalRankFusion, RRF_K } from './fusion.js';
import type { Hit, RetrievalRequest, Retriever } from './retriever.js';

export type RetrievalMode = 'hybrid' | 'vector' | 'fts';

/** Distinct (role, date, entities) scopes remembered; a day's questions need a handful. */
const MAX_SCOPES = 256;

/**
 * LanceDB vector search (cosine over MiniLM) and citetrace's BM25 full-text search, both restricted
 * to the in-force revisions the role may see (and, when the question names a clinic, to that
 * clinic's or system-wide revisions), fused by reciprocal rank fusion.
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
  return {
    id: `${mode}(vector=lancedb-cosine${index.vectorMethod === 'flat' ? '' : `+${index.vectorMethod}`}:${embedder.modelId},fts=${TEXT_SEARCH_ID},fusion=rrf-k${RRF_K},depth=${depth})`,
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
      return reciprocalRankFusion(lists)
        .slice(0, request.limit)
        .map((item, i) => {
          const passage = byChunk.get(item.key);
          const revision = passage === undefined ? undefined : index.revisions.get(passage.revision);
          if (passage === undefined || revision === undefined) throw new CitetraceError('INTERNAL', `fused hit ${item.key} has no passage`);
          return { passage, revision, score: item.score, rank: i + 1, components: item.components };
        });
    },
  };
}
