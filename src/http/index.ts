export { buildApp } from './app.js';
export { createService, type Service } from './service.js';
