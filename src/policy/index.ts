export { normalizeQuestion, MAX_QUESTION_CHARS, type NormalizedQuestion } from './normalize.js';
export { deploymentNames, deploymentWords, entityLabel, isPlaceType, mentionedEntities, placeNeutral, quantifiedTypes } from './entities.js';
export { clarifyQuestion, eachValueAnswer, everyValueRow, quoteLead, type ClarifyCandidate } from './clarify.js';
export { abstentionMessage, noRequestMessage, routingMessage } from './messages.js';
export { asksPlaceHours, channelOfHours } from './hours.js';
export { actedForAge, actingFor, namesAnotherPerson, speaksOnlyOfMinors, type ActedForAge } from './acting.js';
export { INJECTION_MODEL, isInstruction, keptOutOfAnswers, loadInjectionDetector, shippedInjectionDetector, type InjectionDetector } from './injection.js';
export { askedPeriods, datedDays, dayExclusion, dayPhrases, habitualDays, namesAskedDay, namesAskedDayAlone, periodExclusion, statesDay, type AskedPeriod } from './period.js';
export { policyNames, properNames } from './names.js';
