import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * Two runs. `fast` (`npm test`): everything that needs no server and no other runtime, on SQLite.
 * `full` (`npm run test:full`): what needs more: the matrix suites again on a real PostgreSQL
 * server, several API processes, Bun and Deno, and a browser.
 */
const NEEDS_MORE = ['test/postgres/**', 'test/processes/**', 'test/runtimes/**', 'test/browser/**'];
/**
 * Files elsewhere that need what `full` has: throwaway clusters (root), PgBouncer and the built bin
 * (pg-scaling); Bun, Deno and json-server beside Node (the smoke run of every bench suite).
 */
const FULL_FILES = ['test/bench/pg-scaling.test.ts', 'test/bench/tiny.test.ts'];
/** Suites that run on whichever database the run has (they take BACKENDS, MATRIX, POSTGRES_BACKENDS or the server URL). */
const ON_EVERY_DATABASE = (readdirSync('test', { recursive: true }) as string[])
  .map((file) => `test/${file}`)
  .filter((file) => file.endsWith('.test.ts') && /\b(BACKENDS|MATRIX|POSTGRES_BACKENDS|VI_TEST_POSTGRES_URL)\b/.test(readFileSync(file, 'utf8')));
/** The server `test:full` runs on when VI_TEST_POSTGRES_URL does not name another: the one on every development machine. */
const SERVER = process.env.VI_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // Two workers on two cores: the suites wait on sockets and child processes as much as they compute.
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...NEEDS_MORE, ...FULL_FILES], maxWorkers: 2, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'full',
          // Its own group, after fast: files of both projects named in one `vitest run` then run together.
          sequence: { groupOrder: 1 },
          include: [...NEEDS_MORE.map((dir) => `${dir}/*.test.ts`), ...FULL_FILES, ...ON_EVERY_DATABASE.filter((file) => !NEEDS_MORE.some((dir) => file.startsWith(dir.slice(0, -2))))],
          env: { VI_TEST_POSTGRES_URL: SERVER },
          // Drops the server's test schemas once every file is done.
          globalSetup: ['test/support/postgres-schemas.ts'],
        },
      },
    ],
  },
});
