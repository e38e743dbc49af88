import type { Kysely, Migration } from 'kysely';

/**
 * Rate-limit windows lose their index on `window_started_ms`: every count's upsert sets that
 * column, so the index cost a page write per request, and the hourly sweep reads the small table whole.
 */
export const rateLimitsUnindexed: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('rate_limits_by_start').ifExists().execute();
  },
};
