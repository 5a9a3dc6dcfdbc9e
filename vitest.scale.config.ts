import { defineConfig } from 'vitest/config';

/** `npm run test:scale`: the scale-out tests (test/scale), separate processes on a real object store and PostgreSQL. */
export default defineConfig({
  test: {
    include: ['test/scale/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
