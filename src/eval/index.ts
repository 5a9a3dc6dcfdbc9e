export { EvalCaseSchema, readCases, type EvalCase } from './cases.js';
export { judgeCase, percentile, refMatches, type Judgement } from './metrics.js';
export { compareTraces, replayTraces, type ReplayReport } from './replay.js';
export { renderHtmlReport } from './report-html.js';
export { runEval, traceSupport, type EvalMetrics, type EvalReport, type SweepPoint } from './runner.js';
export { findingsOf, verifyTraces, type VerifyReport } from './verify.js';
export { checkpointEvidence, keptHeads, readPublicKey } from './verify-checkpoints.js';
export { verifyIndex, type IndexReport } from './verify-index.js';
