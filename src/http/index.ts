export { buildApp } from './app.js';
export { createService, type Service } from './service.js';
export { assertCanListen, type ListenAddress } from './listen.js';
