import type { AssistantConfig } from '../domain/index.js';

/**
 * Scope routing, before retrieval: an appointment assistant does not triage emergencies, diagnose,
 * advise on medication or interpret results. Emergencies win over everything, whatever else the
 * question asks; a clinical-sounding question that is really about an appointment ("I have a
 * fever, should I reschedule?") stays in scope. Patterns run on the normalized (lower-case)
 * question. A deployment adds its own in assistant.yaml under `scope:`.
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

const WHO = "(?:my|his|her|their|your|the)";
const CANT = "(?:can'?t|cannot|can not|unable to|couldn'?t|won'?t|isn'?t|not)";

const EMERGENCY: readonly RegExp[] = [
  // Heart and chest
  /\bchest\b.{0,40}\b(?:pain|pressure|tight|heavy|hurts?|crushing|squeez)/u,
  new RegExp(`\\bclutching ${WHO} chest\\b`, 'u'),
  /\bheart attack\b/u,
  // Breathing
  new RegExp(`\\b(?:${CANT}|trouble|difficulty|hard to|struggling to)\\s+(?:breath|catch ${WHO} breath|get (?:a|any) breath)`, 'u'),
  /\b(?:not|isn'?t|stopped|aren'?t) breathing\b/u,
  /\bshort(?:ness)? of breath\b/u,
  /\bturning (?:blue|purple|gray|grey)\b/u,
  // Stroke signs
  /\bstroke\b/u,
  /\b(?:face|facial)\b.{0,20}\bdroop/u,
  /\bslurr(?:ed|ing)\b/u,
  /\bwords?\b.{0,20}\b(?:jumbled|garbled|slurred|don'?t make sense)\b/u,
  new RegExp(`\\b${CANT} (?:speak|talk) (?:properly|right|clearly)\\b`, 'u'),
  /\bsudden(?:ly)?\b.{0,30}\b(?:weakness|numbness|numb|paralys|vision|confus|can'?t see)/u,
  /\bweakness in (?:my|his|her) (?:right|left)\b/u,
  /\b(?:can'?t|cannot) (?:feel|move) (?:the |my |his |her )?(?:left|right) side\b/u,
  /\bone side of (?:my|his|her) (?:face|body)\b/u,
  /\bvision (?:went|is|has gone) (?:double|black|dark)\b/u,
  /\bworst headache of (?:my|his|her|their) life\b/u,
  // Bleeding
  /\bsevere(?:ly)? bleed/u,
  /\bbleeding (?:heavily|a lot|badly|nonstop)\b|\bsoaking through\b/u,
  /\bblood\b.{0,30}\b(?:spurting|gushing|pouring|everywhere)\b/u,
  /\bbleed(?:ing)?\b.{0,40}\b(?:won'?t|will not|doesn'?t|can'?t|not) stop/u,
  /\b(?:won'?t|can'?t) (?:stop|get it to stop)\b.{0,10}\bbleed/u,
  /\b(?:vomiting|throwing up|coughing up|puking) (?:up )?blood\b/u,
  // Poisoning and overdose
  /\boverdos/u,
  /\b(?:took|swallowed|taken|ate|had) (?:way |far )?too many\b/u,
  /\bswallowed\b.{0,30}\b(?:pills|tablets|medication|meds|batter(?:y|ies)|magnets?)\b/u,
  /\b(?:drank|swallowed|ingested|ate|drink|eaten)\b.{0,30}\b(?:bleach|poison|detergent|antifreeze|cleaner|pod|lye|drain)/u,
  /\bpoison(?:ed|ing)\b/u,
  /\bcarbon monoxide\b/u,
  // Self-harm
  /\bsuicid/u,
  /\bkill(?:ing)? (?:my|him|her|them)sel(?:f|ves)\b/u,
  /\bend (?:my life|it all|things)\b/u,
  /\b(?:don'?t|do not) (?:see the point|want to (?:live|be alive|be here)|see a reason)\b/u,
  /\bno (?:point|reason) (?:in |to )?(?:living|live|going on)\b/u,
  /\b(?:hurt|harm|cut)(?:ing)? myself\b/u,
  /\bself[- ]harm/u,
  // Consciousness, seizures
  /\b(?:unconscious|unresponsive|not responding|isn'?t responding|won'?t wake|can barely wake|can'?t wake)\b/u,
  /\b(?:is|went|gone|going) limp\b/u,
  /\bcollapsed\b/u,
  /\b(?:passed|passing|about to pass) out\b/u,
  /\bseiz(?:ure|ing)|\bconvuls/u,
  // Severe allergic reactions
  /\banaphyla/u,
  /\bthroat\b.{0,30}\b(?:closing|swelling|swollen|tight)/u,
  /\b(?:tongue|lips|face)\b.{0,30}\bswell/u,
  // Injuries and burns
  new RegExp(`\\bhit ${WHO} head\\b.{0,80}\\b(?:confused|unconscious|vomit|throwing up|doesn'?t know|passed out|won'?t wake)`, 'u'),
  /\b(?:can'?t|cannot) feel (?:my|his|her) (?:legs|arms|body)\b/u,
  /\b(?:car|motorcycle|bike) (?:accident|crash)\b/u,
  /\bboiling (?:oil|water)\b|\bskin is (?:white|charred|black)\b|\bsevere(?:ly)? burn/u,
];

const CLINICAL: readonly RegExp[] = [
  // Medication choice, dosing, interactions
  /\bhow (?:much|many)\b.{0,40}\b(?:mg|milligrams|ml|tablets?|pills?|doses?|motrin|tylenol|ibuprofen|acetaminophen|advil|aleve|benadryl|aspirin|insulin)\b/u,
  /\b(?:what|which) (?:dose|dosage)\b|\bdosage\b|\bdouble (?:up|dose)\b/u,
  /\bwhile (?:on|taking)\b/u,
  /\b(?:safe|ok|okay|fine|bad) to (?:take|drink|mix|combine|give|stop|skip)\b/u,
  /\b(?:take|mix|combine)\b.{0,30}\bwith (?:my|his|her) (?:antidepressant|medication|meds|pills|blood thinner|insulin|prescription)/u,
  /\b(?:give|giving) (?:my )?(?:kid|child|son|daughter|baby|toddler|\d+ ?yo)\b.{0,30}\b(?:benadryl|tylenol|motrin|ibuprofen|medicine|medication|melatonin)/u,
  /\bshould i (?:switch|stop|start|change|taper|increase|decrease|skip)\b/u,
  /\b(?:can|should|could) (?:i|we|he|she) (?:take|use)\b(?! (?:a|an|the|my) (?:bus|train|cab|taxi|video|visit|appointment|call|seat|friend|ride))/u,
  /\bwhat (?:should|can|could) (?:i|we) (?:take|use|give)\b/u,
  /\bhow (?:should|do|can) i (?:taper|wean|stop taking|come off)\b/u,
  /\b(?:what|which) (?:antibiotic|medication|medicine|drug|pill|cream|ointment|treatment)\b/u,
  /\bdo (?:i|we|they|you) need (?:antibiotics|medication|medicine|stitches|surgery|an? (?:antibiotic|prescription))\b/u,
  /\bhow long (?:does it take|until|before)\b.{0,40}\b(?:work|kick in|take effect)/u,
  /\bside effects?\b|\binteract(?:ion|s)?\b/u,
  // Diagnosis and what a symptom means
  /\bwhat (?:could|might|would) (?:be )?caus/u,
  /\bwhy (?:do|does|is|am|are|would) (?:i|my|his|her)\b.{0,40}\b(?:hurt|ache|pain|itch|swell|rash|cough|dizzy|tired|bleed|sore|numb|tingl)/u,
  /\bwhat(?:'s| is) causing\b/u,
  /\bwhat is (?:it|this|that)\?/u,
  /\bis (?:this|it|that)\b.{0,40}\b(?:cancer|serious|dangerous|normal|contagious|infected|an infection|a sign|melanoma|broken|fractured)\b/u,
  /\bsign of\b/u,
  /\bsomething (?:to worry|serious|wrong)\b|\bshould i (?:be )?(?:worr|concerned)/u,
  /\bcould (?:my|this|it|that)\b.{0,50}\b(?:be from|be caused|mean|be a)\b/u,
  /\bdoes\b.{0,60}\bmean\b/u,
  /\bwhat does\b.{0,60}\b(?:mean|indicate)\b/u,
  /\bis it bad that\b|\bis (?:that|it) bad\b/u,
  /\bgo away on (?:its|it'?s) own\b/u,
  /\b(?:do|might|could|would) (?:i|we|he|she|they) have (?:a |an )?(?:\w+ )?(?:infection|cancer|diabetes|covid|flu|strep|pneumonia|allergy|disease|condition|fracture|concussion|uti|std|sti|virus)\b|\bam i having\b/u,
  /\b(?:diagnos|interpret)/u,
  /\bis \d+(?:\/\d+|\.\d+)?\b.{0,30}\b(?:high|low|normal|bad|ok)\b/u,
  /\b(?:results?|levels?|count|a1c|cholesterol|potassium|sodium|glucose|sugar|pressure)\b.{0,30}\b(?:is|are|was|were|came back|flagged)\b.{0,20}\b(?:high|low|normal|bad|good|abnormal|positive|negative|elevated)\b/u,
  /\bhow (?:do|should|can) i (?:treat|get rid of|cure)\b|\b(?:treatment|cure|remedy) for\b/u,
  // Whether something is medically safe, and preparation a clinician decides
  /\bis it (?:safe|ok|okay|dangerous) (?:for (?:me|my \w+|him|her|them) )?to\b/u,
  /\bwhile (?:i'?m|i am|she'?s|she is|being) (?:pregnant|breast-?feeding|nursing)\b/u,
  /\bshould i fast\b|\bhow long (?:should|do) i (?:need to )?fast\b/u,
];

const APPOINTMENT: readonly RegExp[] = [
  /\b(?:appointment|reschedul|cancel|book|booking|visit|walk-in|check-?in|schedul|come in|keep my|video visit|referral|clinic hours|open|parking)\b/u,
];

export const DEFAULT_SCOPE_RULES: ScopeRules = { emergency: EMERGENCY, clinical: CLINICAL, appointment: APPOINTMENT };

/** Defaults plus a deployment's own patterns (assistant.yaml `scope:`), compiled case-insensitively. */
export function scopeRulesWith(extra: AssistantConfig['scope']): ScopeRules {
  const compile = (patterns: readonly string[] | undefined): RegExp[] => (patterns ?? []).map((p) => new RegExp(p, 'iu'));
  return {
    emergency: [...EMERGENCY, ...compile(extra?.emergency)],
    clinical: [...CLINICAL, ...compile(extra?.clinical)],
    appointment: [...APPOINTMENT, ...compile(extra?.appointment)],
  };
}

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
