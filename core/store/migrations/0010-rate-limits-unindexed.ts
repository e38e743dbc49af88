import type { Kysely, Migration } from 'kysely';

/**
 * Rate-limit windows lose their index on `window_started_ms`. Every request's count is an upsert
 * that sets the column (to the value it had, unless the window closed), and SQLite rewrites an
 * index entry whose column an UPDATE sets: a second page in each request's commit, ~20 µs of its
 * ~56 (bun:sqlite, timed side by side on one file). The table holds one row per key that was used
 * within the hour, so the hourly sweep reads it whole at no cost an index would save.
 */
export const rateLimitsUnindexed: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('rate_limits_by_start').ifExists().execute();
  },
};
