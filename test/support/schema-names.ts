import { randomBytes } from 'node:crypto';

let schemas = 0;

/**
 * A Postgres schema name no other world of this run uses (test files run in parallel on one
 * server), under the run's prefix (`test/support/postgres-schemas.ts` drops them all at the end).
 */
export function freshSchema(): string {
  // Worker threads share a pid and may start in the same millisecond: random bits keep them apart.
  const prefix = process.env.VI_TEST_SCHEMA_PREFIX ?? 'vi_';
  return `${prefix}${process.pid}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}_${schemas++}`;
}
