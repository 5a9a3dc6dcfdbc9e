export { createAssistant, type AskRequest, type Assistant, type AssistantDeps } from './assistant.js';
