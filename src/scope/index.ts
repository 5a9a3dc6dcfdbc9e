export { loadScopeClassifier, SCOPE_CLASSES, SCOPE_MODEL, SCOPE_URGENT_MODEL, SECOND_READER_ADDS, type ScopeClass, type ScopeClassifier, type ScopeScores } from './classifier.js';
export { createSafetyFloor, DEFAULT_FLOOR, type FloorHit, type FloorPhrase, type SafetyFloor, type UrgentClass } from './floor.js';
export { asksNothing } from './phatic.js';
export { createScopeRouter, segmentsOf, type ScopeRouter } from './router.js';
export { createLanguageIdentifier, LANGUAGE_MODEL, loadLanguageModel, type LanguageIdentifier, type LanguageModel, type LanguageReading } from './language.js';
