import type { TestProject } from 'vitest/node';
import { loadConfig } from '../src/config/index.js';
import { provisionModel } from '../src/embed/index.js';
import { startPostgresForTests } from './postgres-server.js';

/**
 * Once per test run, before any worker starts: provision the real embedding model (a download only on a fresh machine)
 * and start the PostgreSQL server the trace-store suites use (see test/postgres.ts); stop and delete it afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = loadConfig({ env: process.env });
  const [, postgres] = await Promise.all([
    provisionModel({
      cacheDir: config.modelCacheDir,
      modelDir: config.modelDir,
      mavenRepo: config.mavenRepo,
      allowHub: config.allowHub,
      onProgress: (message) => process.stderr.write(`${message}\n`),
    }),
    startPostgresForTests({ env: process.env }),
  ]);
  const context = postgres.context;
  if ('error' in context) process.stderr.write(`PostgreSQL for the trace-store suites: none; they will fail. ${context.error}\n`);
  else if (context.source === 'embedded') process.stderr.write(`PostgreSQL for the trace-store suites: embedded, started in ${context.startMs} ms\n`);
  else process.stderr.write('PostgreSQL for the trace-store suites: CITETRACE_TEST_PG\n');
  project.provide('postgres', context);
  return () => postgres.stop();
}
