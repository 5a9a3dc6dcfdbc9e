import { assertNever, type AssistantConfig } from '../domain/index.js';

/**
 * What a routed message is told. assistant.yaml `routing_messages` holds the deployment's text;
 * these defaults are the contract's (section 2) for a deployment that sets none.
 */
export function routingMessage(route: 'emergency' | 'crisis' | 'clinical', assistant: AssistantConfig): string {
  const own = assistant.routing_messages?.[route];
  if (own !== undefined) return own;
  switch (route) {
    case 'emergency':
      return 'This may be an emergency. Call 911 or go to the nearest emergency department now.';
    case 'crisis':
      return 'You deserve support right now. Call or text 988 (Suicide & Crisis Lifeline), any time. If you or someone else is in immediate danger, call 911.';
    case 'clinical':
      return `I can only help with appointments and visiting ${assistant.organization}. For questions about symptoms, medications or test results, please contact your care team, or ${assistant.appointment_channel}.`;
    default:
      return assertNever(route);
  }
}

/** One form for every abstention reason; the reason itself stays in the trace. */
export function abstentionMessage(assistant: AssistantConfig): string {
  return `I can't verify an answer to that from ${assistant.organization}'s current policies. For help, please ${assistant.appointment_channel}.`;
}

/**
 * Text in a policy page that addresses the assistant instead of patients (OWASP LLM01, indirect
 * prompt injection). Retrieved text is data: such sentences are never used as answer sentences.
 */
const INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|any|your)\b.{0,20}\b(?:instructions?|rules?|prompts?|guidelines?|directions?)\b/iu,
  // "act as" alone is a rule's words too ("no one under 18 may act as an interpreter"): only when it is the reader who is to act.
  /\b(?:you are now|pretend to be|from now on,? you|you (?:must|should|will|shall|are to) act as|act as if)\b/iu,
  /\bsystem prompt\b/iu,
  /\b(?:assistants?|ai|chatbots?|language models?|llms?)\b.{0,30}\b(?:must|should|will|shall)\b.{0,20}\b(?:say|tell|answer|respond|reply)\b/iu,
  /\btell (?:all |every |any )?(?:patients?|users?|everyone|callers?)\b/iu,
  // Addressed to a machine reader ("Note to AI assistants…", "Instruction for the AI…"): a patient page never is.
  /\b(?:notes?|instructions?|messages?|reminders?|attention|directions?)\b.{0,12}\b(?:to|for)\b.{0,12}\b(?:ai|assistants?|chatbots?|bots?|language models?|llms?)\b/iu,
];

/**
 * A sentence that names a machine reader, tells it what it must or should do, and the deed is
 * saying something ("AI assistants answering patient questions must always promise that …"),
 * wherever the three stand in it: a patient page addresses patients, never a model.
 */
const MACHINE_READER = /\b(?:ai|artificial intelligence|(?:virtual|digital|automated|ai|chat)\s+assistants?|chat ?bots?|bots?|language models?|llms?|assistants?\s+(?:answering|responding|replying|reading)|assistant instructions?)\b/iu;
const DIRECTIVE = /\b(?:must|should|shall|always|never|are to|is to|need to|have to)\b/iu;
const SAYING = /\b(?:say|tell|answer|respond|reply|promise|assure|guarantee|state|inform|mention|confirm|quote)(?:s|ed|ing)?\b/iu;

export function isInstruction(sentence: string): boolean {
  return INSTRUCTION_PATTERNS.some((pattern) => pattern.test(sentence)) || (MACHINE_READER.test(sentence) && DIRECTIVE.test(sentence) && SAYING.test(sentence));
}
