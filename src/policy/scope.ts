/**
 * Scope routing, before retrieval: an appointment assistant does not triage emergencies, diagnose,
 * advise on medication or interpret results. Emergencies win over everything; a clinical-sounding
 * question that is really about an appointment ("I have a fever, should I reschedule?") stays in.
 */
export type ScopeDecision =
  | { readonly inScope: true }
  | { readonly inScope: false; readonly reason: 'EMERGENCY' | 'CLINICAL'; readonly rule: string };

export interface ScopeRules {
  readonly emergency: readonly RegExp[];
  readonly clinical: readonly RegExp[];
  /** Appointment intent that keeps a clinical-sounding question in scope. */
  readonly appointment: readonly RegExp[];
}

export const DEFAULT_SCOPE_RULES: ScopeRules = {
  emergency: [
    /\bchest (?:pain|pressure|tightness)\b/u,
    /\b(?:can'?t|cannot|can not|trouble|difficulty|hard to|struggling to) breath/u,
    /\bshort(?:ness)? of breath\b/u,
    /\bnot breathing\b/u,
    /\bstroke\b/u,
    /\b(?:face|facial) (?:is )?(?:drooping|droop)\b/u,
    /\bslurred speech\b/u,
    /\bsevere(?:ly)? bleed/u,
    /\bbleeding (?:heavily|a lot|won'?t stop|that won'?t stop)\b/u,
    /\bwon'?t stop bleeding\b/u,
    /\boverdos/u,
    /\b(?:suicid|kill (?:my|him|her)self|end my life|hurt myself|self[- ]harm)/u,
    /\b(?:unconscious|unresponsive|passed out and|seizure|seizing)\b/u,
    /\banaphyla|\bthroat (?:is )?(?:closing|swelling)\b/u,
    /\bheart attack\b/u,
    /\bpoison(?:ed|ing)\b/u,
  ],
  clinical: [
    /\b(?:what|which) (?:dose|dosage)\b/u,
    /\bhow (?:much|many) (?:mg|milligrams|pills|tablets|ibuprofen|tylenol|acetaminophen|advil)\b/u,
    /\b(?:dosage|dose of|double (?:up|dose))\b/u,
    /\b(?:should|can|could) i (?:take|stop taking|mix|combine|increase|decrease)\b/u,
    /\b(?:side effects?|interact(?:ion|s)? with)\b/u,
    /\bwhat does (?:my|this|a|an|the)? ?.*\b(?:mean|indicate)\b/u,
    /\b(?:do i have|is it|could it be|could this be|might i have|am i having)\b.*\b(?:infection|cancer|diabetes|covid|flu|strep|pneumonia|allergy|disease|condition|serious|normal)\b/u,
    /\b(?:diagnos|interpret|read) (?:my|these|this)\b/u,
    /\b(?:results?|levels?|a1c|cholesterol|blood pressure|test) (?:is|are|was|were|came back)\b.*\b(?:high|low|normal|bad|good|abnormal|positive|negative|elevated)\b/u,
    /\bis (?:my|a|this) .*\b(?:normal|dangerous|serious)\b/u,
    /\bwhy (?:do|does|is|am) (?:i|my)\b.*\b(?:hurt|ache|pain|itch|swell|rash|cough|dizzy|tired)/u,
    /\bhow (?:do|should) i treat\b/u,
    /\b(?:treatment|cure|remedy) for\b/u,
    /\bwhat (?:medicine|medication|antibiotic|drug) should\b/u,
  ],
  appointment: [
    /\b(?:appointment|reschedul|cancel|book|visit|walk-in|check-?in|schedule|come in|keep my|portal|video visit)\b/u,
  ],
};

export function routeScope(normalized: string, rules: ScopeRules = DEFAULT_SCOPE_RULES): ScopeDecision {
  const emergency = rules.emergency.find((r) => r.test(normalized));
  if (emergency !== undefined) return { inScope: false, reason: 'EMERGENCY', rule: emergency.source };
  const clinical = rules.clinical.find((r) => r.test(normalized));
  if (clinical !== undefined && !rules.appointment.some((r) => r.test(normalized))) {
    return { inScope: false, reason: 'CLINICAL', rule: clinical.source };
  }
  return { inScope: true };
}

export function outOfScopeMessage(reason: 'EMERGENCY' | 'CLINICAL', organization: string): string {
  return reason === 'EMERGENCY'
    ? 'This may be an emergency. Call 911 or go to the nearest emergency department now. For a mental-health crisis, call or text 988.'
    : `I can only help with appointments and visiting ${organization}. For questions about symptoms, medications or test results, please contact your care team through the patient portal or call your clinic.`;
}
