export { analysisTerms, contentTerms, stem, words } from './tokens.js';
export { passageSentences, splitSentences } from './sentences.js';
export { askedDetails, detailCues, statedDetails } from './details.js';
export { conceptualize, type Conceptualized } from './concepts.js';
