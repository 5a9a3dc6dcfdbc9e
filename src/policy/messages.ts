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
