import { sql, type Kysely, type Migration } from 'kysely';

/** The spans of this migration, as it was released (the code's may change later). */
const DAY = 86_400;
const BLOCK = 16 * DAY;

/**
 * Adds counters per site and block of 16 days (event-counts.ts), filled from the day counters, so
 * long stats ranges sum few rows. A day lies wholly in one block (both count from 1970).
 */
export const statsBlocks: Migration = {
  async up(db: Kysely<any>) {
    // `((s % b) + b) % b` is the remainder rounded down, so a day before 1970 falls in its own block.
    await sql`
      insert into ${sql.table('event_counts')} (account_id, site_pk, span, starts_at, events)
      select account_id, site_pk, ${sql.lit(BLOCK)}, block_start, sum(events)
      from (select account_id, site_pk, events, starts_at - ((starts_at % ${sql.lit(BLOCK)}) + ${sql.lit(BLOCK)}) % ${sql.lit(BLOCK)} as block_start from ${sql.table('event_counts')} where span = ${sql.lit(DAY)}) d
      group by account_id, site_pk, block_start`.execute(db);
  },
};
