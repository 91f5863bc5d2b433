import { defineConfig } from 'vitest/config';

// Unit tests run once; everything that starts a service runs against both storage backends.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/runners/**/*.test.ts'],
          globalSetup: ['test/helpers/runtime-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'embedded',
          include: ['test/e2e/**/*.test.ts'],
          env: { OUTPOST_TEST_STORAGE: 'embedded' },
          globalSetup: ['test/helpers/runtime-setup.ts', 'test/helpers/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/e2e/**/*.test.ts'],
          env: { OUTPOST_TEST_STORAGE: 'postgres' },
          globalSetup: ['test/helpers/runtime-setup.ts', 'test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
