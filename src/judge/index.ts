export { JUDGE_MODEL, loadSupportJudge, type SupportJudge } from './judge.js';
