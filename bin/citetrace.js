#!/usr/bin/env node
// Runs the compiled CLI in dist/ (built by `npm ci` through the `prepare` script, or `npm run build`).
// No TypeScript at run time: start-up time is a feature.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('citetrace: dist/ is missing (the compiled CLI): run npm ci or npm run build\n');
  process.exit(1);
}
await import(entry.href);
