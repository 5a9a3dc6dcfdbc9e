export * from './errors.js';
export * from './ids.js';
export * from './policy.js';
export * from './in-force.js';
export * from './trace.js';
export * from './labeled.js';
export * from './memo.js';
