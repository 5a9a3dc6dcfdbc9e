import { assertNever, type AssistantConfig } from '../domain/index.js';
import { LANGUAGE_ROUTING_MESSAGES } from './language-messages.js';

/**
 * What a routed message is told. assistant.yaml `routing_messages` holds the deployment's text;
 * these defaults are the contract's (section 2) for a deployment that sets none.
 */
export function routingMessage(route: 'emergency' | 'crisis' | 'clinical' | 'language', assistant: AssistantConfig, language: string | null = null): string {
  const english = assistant.routing_messages?.[route] ?? defaultRoutingMessage(route, assistant);
  // A patient who wrote in another language reads the emergency numbers and the way to an interpreter in it first.
  const theirs = language === null ? undefined : (assistant.routing_messages?.translations?.[language] ?? LANGUAGE_ROUTING_MESSAGES[language]);
  return theirs === undefined ? english : `${theirs.replace('{channel}', assistant.appointment_channel)}\n\n${english}`;
}

function defaultRoutingMessage(route: 'emergency' | 'crisis' | 'clinical' | 'language', assistant: AssistantConfig): string {
  switch (route) {
    case 'emergency':
      return 'This may be an emergency. Call 911 or go to the nearest emergency department now.';
    case 'crisis':
      return 'You deserve support right now. Call or text 988 (Suicide & Crisis Lifeline), any time. If you or someone else is in immediate danger, call 911.';
    case 'clinical':
      return `I can only help with appointments and visiting ${assistant.organization}. For questions about symptoms, medications or test results, please contact your care team, or ${assistant.appointment_channel}.`;
    case 'language':
      return `I can only answer questions written in English. If this is an emergency, call 911 or go to the nearest emergency department. In a mental-health crisis, call or text 988. For help in your language, please ${assistant.appointment_channel} and ask for an interpreter.`;
    default:
      return assertNever(route);
  }
}

/** One form for every abstention reason; the reason itself stays in the trace. */
export function abstentionMessage(assistant: AssistantConfig): string {
  return `I can't verify an answer to that from ${assistant.organization}'s current policies. For help, please ${assistant.appointment_channel}.`;
}
