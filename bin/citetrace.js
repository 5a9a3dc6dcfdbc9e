#!/usr/bin/env node
// Runs citetrace from its TypeScript sources: no separate build step after `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
