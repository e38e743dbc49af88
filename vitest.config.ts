import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Drops the real-server backend's schemas once every file is done (only with VI_TEST_POSTGRES_URL).
    globalSetup: ['test/support/postgres-schemas.ts'],
  },
});
