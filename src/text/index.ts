export { analysisTerms, contentTerms, stem, words } from './tokens.js';
export { passageSentences, splitSentences } from './sentences.js';
export { detailValues, statedDetails } from './details.js';
export { daysNamed, type Weekday } from './days.js';
export { conceptualize, type Conceptualized } from './concepts.js';
export { channelsOf, questionFocus, type QuestionFocus } from './question.js';
