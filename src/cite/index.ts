export { answers, judgeSupport, namesNone, type JudgedUnit, type NeutralReading, type SupportDecision } from './judged.js';
export { flaggedSpans, judgeText, passageUnits, type RowCell, type Unit } from './units.js';
export type { FlaggedSpan } from './flagged.js';
export { checkLabels, parseLabeledSentences, stripLabels, type LabelCheck, type LabeledSentence } from './labels.js';
export { SUPPORT_THRESHOLD, supportScore } from './support.js';
export { validateAnswer, type Validation, type ValidatedSentence } from './validate.js';
export { findConflict, type Conflict } from './conflict.js';
