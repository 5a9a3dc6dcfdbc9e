export { reciprocalRankFusion, RRF_K, type FusedItem, type RankedList } from './fusion.js';
export { createHybridRetriever, type RetrievalMode } from './hybrid.js';
export type { Hit, RetrievalRequest, Retriever } from './retriever.js';
