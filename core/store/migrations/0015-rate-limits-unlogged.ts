import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Rate-limit windows leave the write-ahead log on Postgres, so a count no longer waits for a WAL
 * flush while holding the bucket's row. The price: a server crash empties the table, so a budget
 * can be granted twice after a crash, never more than the limit in between.
 */
export const rateLimitsUnlogged: Migration = {
  async up(db: Kysely<any>) {
    await dialectOf(db).unlogged(db, 'rate_limits');
  },
};
