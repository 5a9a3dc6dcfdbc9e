export { contentTerms, stem, words } from './tokens.js';
export { askingSentences, passageSentences, sentenceSpans, splitSentences } from './sentences.js';
export type { SentenceSpan } from './sentences.js';
export { bindsValuesAs, PHONE_NUMBER, statedValues, valueRuns } from './details.js';
export { withinOneEdit } from './edit.js';
export { namesPattern } from './names.js';
