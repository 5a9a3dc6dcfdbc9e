export { addresses, decideSupport, MIN_COVERAGE, withinOneEdit, type ScoredSentence, type SupportDecision, type SupportingText } from './coverage.js';
export { checkLabels, parseLabeledSentences, stripLabels, type LabelCheck, type LabeledSentence } from './labels.js';
export { SUPPORT_THRESHOLD, supportScore } from './support.js';
export { validateAnswer, type Validation, type ValidatedSentence } from './validate.js';
export { findConflict, type Conflict } from './conflict.js';
