import { assertNever, type AssistantConfig } from '../domain/index.js';
import { PHONE_NUMBER } from '../text/index.js';
import { LANGUAGE_ROUTING_MESSAGES } from './language-messages.js';

/**
 * What a routed message is told. assistant.yaml `routing_messages` holds the deployment's text;
 * these defaults are the contract's (section 2) for a deployment that sets none.
 */
export function routingMessage(route: 'emergency' | 'crisis' | 'clinical' | 'language', assistant: AssistantConfig, language: string | null = null): string {
  const english = assistant.routing_messages?.[route] ?? defaultRoutingMessage(route, assistant);
  // A patient who wrote in another language reads the emergency numbers and the way to an interpreter in it first.
  if (language === null) return english;
  const own = assistant.routing_messages?.translations?.[language];
  // The built-in texts name the channel by its phone numbers: the channel's English words would break the sentence
  // (the whole channel follows in the English message). The deployment's own translation gets the channel as it wrote it.
  const theirs = own?.replace('{channel}', assistant.appointment_channel) ?? LANGUAGE_ROUTING_MESSAGES[language]?.replace('{channel}', channelNumbers(assistant.appointment_channel));
  return theirs === undefined ? english : `${theirs}\n\n${english}`;
}

/** The phone numbers in the appointment channel's text ("555-0142, 555-0143"), or the text itself when it has none. */
function channelNumbers(channel: string): string {
  const numbers = channel.match(PHONE_NUMBER) ?? [];
  return numbers.length === 0 ? channel : numbers.join(', ');
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

/** What a message that asks nothing (a greeting, thanks, "ok") is told: what the assistant is for, and the appointment channel. */
export function noRequestMessage(assistant: AssistantConfig): string {
  return (
    assistant.routing_messages?.no_request ??
    `What would you like to know about appointments or visiting ${assistant.organization}? For anything else, please ${assistant.appointment_channel}.`
  );
}

/** One form for every abstention reason; the reason itself stays in the trace. */
export function abstentionMessage(assistant: AssistantConfig): string {
  return `I can't verify an answer to that from ${assistant.organization}'s current policies. For help, please ${assistant.appointment_channel}.`;
}
