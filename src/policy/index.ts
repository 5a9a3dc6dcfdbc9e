export { normalizeQuestion, MAX_QUESTION_CHARS, type NormalizedQuestion } from './normalize.js';
export { DEFAULT_SCOPE_RULES, outOfScopeMessage, routeScope, scopeRulesWith, type ScopeDecision, type ScopeRules } from './scope.js';
export { entityLabel, entityNameTerms, mentionedEntities } from './entities.js';
export { clarifyQuestion } from './clarify.js';
export { abstentionMessage, isInstruction } from './messages.js';
