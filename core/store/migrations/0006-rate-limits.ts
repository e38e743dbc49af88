import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Rate-limit windows in the database, one row per bucket, so a restart keeps them and every API
 * process on the database shares them (they lived in each process's memory before).
 */
export const rateLimitsSchema: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    await db.schema
      .createTable('rate_limits')
      .addColumn('bucket', t.text, (c) => c.primaryKey())
      // Milliseconds of the API's clock, not the database's: tests move time, and Retry-After keeps its precision.
      .addColumn('window_started_ms', t.int, (c) => c.notNull())
      .addColumn('used', t.int, (c) => c.notNull())
      .execute();
    // The sweep deletes closed windows by their start.
    await db.schema.createIndex('rate_limits_by_start').on('rate_limits').columns(['window_started_ms']).execute();
  },
};
