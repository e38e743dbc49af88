import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/** The bucket lengths of this migration, as it was released (the code's may change later). */
const SPANS = [3_600, 86_400];

/**
 * What stats read instead of counting on every request, filled from the data already loaded:
 * `event_counts` (events per site per hour and UTC day) and `site_sets` (owners per account and
 * exact set of sites, each owner's set in `site_set_owners`).
 */
export const statsCounters: Migration = {
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

    await db.schema
      .createTable('site_sets')
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('kind', t.text, (c) => c.notNull())
      .addColumn('sites', t.text, (c) => c.notNull())
      .addColumn('members', t.int, (c) => c.notNull())
      .addPrimaryKeyConstraint('site_sets_pk', ['account_id', 'kind', 'sites'])
      .$call((table) => (t.withoutRowid ? table.modifyEnd(t.withoutRowid) : table))
      .execute();
    await db.schema
      .createTable('site_set_owners')
      .addColumn('kind', t.text, (c) => c.notNull())
      .addColumn('owner_pk', t.int, (c) => c.notNull())
      .addColumn('sites', t.text, (c) => c.notNull())
      .addPrimaryKeyConstraint('site_set_owners_pk', ['kind', 'owner_pk'])
      .$call((table) => (t.withoutRowid ? table.modifyEnd(t.withoutRowid) : table))
      .execute();

    await fillEventCounts(db);
    await fillSiteSets(db, 'person', 'people', 'person_sites', 'person_pk');
    await fillSiteSets(db, 'company', 'companies', 'company_sites', 'company_pk');
  },
};

/** Counts the events already loaded, per site and bucket of each span. */
async function fillEventCounts(db: Kysely<any>): Promise<void> {
  for (const span of SPANS) {
    // `((ts % s) + s) % s` is the remainder rounded down, so a time before 1970 falls in its own bucket.
    await sql`
      insert into ${sql.table('event_counts')} (account_id, site_pk, span, starts_at, events)
      select account_id, site_pk, ${sql.lit(span)}, starts_at, count(*)
      from (select account_id, site_pk, ts - ((ts % ${sql.lit(span)}) + ${sql.lit(span)}) % ${sql.lit(span)} as starts_at from ${sql.table('events')}) e
      group by account_id, site_pk, starts_at`.execute(db);
  }
}

/**
 * Records each owner's set of sites (`,3,7,`, ascending; `''` with none) and counts the owners of
 * each set per account. The code that keeps them up to date later reads each owner's recorded set
 * back rather than recomputing it, so it stays exact even where SQLite's concatenation order differs.
 */
async function fillSiteSets(db: Kysely<any>, kind: string, owners: string, visits: string, ownerColumn: string): Promise<void> {
  const joined = dialectOf(db).orderedConcat(sql`cast(site_pk as text)`, ',', sql`site_pk`);
  await sql`
    insert into ${sql.table('site_set_owners')} (kind, owner_pk, sites)
    select ${sql.lit(kind)}, o.pk, coalesce(',' || g.sites || ',', '')
    from ${sql.table(owners)} o
    left join (
      select owner, ${joined} as sites
      from (select ${sql.id(ownerColumn)} as owner, site_pk from ${sql.table(visits)} order by ${sql.id(ownerColumn)}, site_pk) v
      group by owner
    ) g on g.owner = o.pk`.execute(db);
  await sql`
    insert into ${sql.table('site_sets')} (account_id, kind, sites, members)
    select o.account_id, ${sql.lit(kind)}, s.sites, count(*)
    from ${sql.table('site_set_owners')} s join ${sql.table(owners)} o on o.pk = s.owner_pk
    where s.kind = ${sql.lit(kind)}
    group by o.account_id, s.sites`.execute(db);
}
