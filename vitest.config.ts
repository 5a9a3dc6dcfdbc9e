import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The scale-out suite starts a deployment of separate processes: `npm run test:scale`.
    exclude: [...configDefaults.exclude, 'test/scale/**'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
