export { loadScopeClassifier, SCOPE_CLASSES, SCOPE_MODEL, type ScopeClass, type ScopeClassifier, type ScopeScores } from './classifier.js';
export { createSafetyFloor, DEFAULT_FLOOR, floorTokens, type FloorHit, type FloorPhrase, type SafetyFloor, type UrgentClass } from './floor.js';
export { createScopeRouter, segmentsOf, type Route, type ScopeRouter, type ScopeRouting } from './router.js';
