import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Rate-limit windows leave the write-ahead log on Postgres. A count is an upsert committed per
 * bucket and turn, and with `synchronous_commit` on (the default) each commit waited for its WAL
 * to reach the disk while holding the bucket's row: 0.20 ms a count against 0.05 unlogged
 * (pgbench, the count's own statement, one client, PostgreSQL 15 on a 2-core machine), and every
 * process counting a key queued behind that flush. The price: a crash of the database server
 * (not a clean restart) empties the table, so every window starts afresh; a replica holds none.
 * A budget can thus be granted twice after a crash, never more than the limit in between.
 */
export const rateLimitsUnlogged: Migration = {
  async up(db: Kysely<any>) {
    await dialectOf(db).unlogged(db, 'rate_limits');
  },
};
