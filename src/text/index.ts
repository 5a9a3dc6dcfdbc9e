export { contentTerms, stem, words } from './tokens.js';
export { passageSentences, splitSentences } from './sentences.js';
export { statedValues } from './details.js';
export { withinOneEdit } from './edit.js';
