import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/** The bucket lengths of this migration, as it was released (the code's may change later). */
const SPANS = [3_600, 86_400];

/**
 * Events per site per hour and per day, so stats sum buckets instead of counting every recent
 * event on each request. Filled here from the events already loaded. A reset baseline saved
 * before this migration needs nothing: a process saves its own baseline before it may reset
 * (the API refuses a reset otherwise), and a save copies every table, this one included.
 */
export const eventCountsSchema: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    await db.schema
      .createTable('event_counts')
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('site_pk', t.int, (c) => c.notNull().references('sites.pk'))
      .addColumn('span', t.int, (c) => c.notNull())
      .addColumn('starts_at', t.int, (c) => c.notNull())
      .addColumn('events', t.int, (c) => c.notNull())
      .addPrimaryKeyConstraint('event_counts_pk', ['site_pk', 'span', 'starts_at'])
      .$call((table) => (t.withoutRowid ? table.modifyEnd(t.withoutRowid) : table))
      .execute();
    // The account-wide view sums every site's buckets of a span from a start on; `events` is in
    // the index so the sum never visits the table.
    await db.schema.createIndex('event_counts_by_account').on('event_counts').columns(['account_id', 'span', 'starts_at', 'events']).execute();

    await fill(db);
  },
};

/** Counts the events already loaded, per site and bucket of each span. */
async function fill(db: Kysely<any>): Promise<void> {
  for (const span of SPANS) {
    // `((ts % s) + s) % s` is the remainder rounded down, so a time before 1970 falls in its own bucket.
    await sql`
      insert into event_counts (account_id, site_pk, span, starts_at, events)
      select account_id, site_pk, ${sql.lit(span)}, starts_at, count(*)
      from (select account_id, site_pk, ts - ((ts % ${sql.lit(span)}) + ${sql.lit(span)}) % ${sql.lit(span)} as starts_at from events) e
      group by account_id, site_pk, starts_at`.execute(db);
  }
}
