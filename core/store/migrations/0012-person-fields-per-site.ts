import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Each `person_sites` row carries what people lists order and filter by (the person's latest visit
 * anywhere, hot lead, sites visited), written with its person so the copies never drift. Site
 * filters then merge the sites' own ranges, and partial indexes hold the hot leads alone.
 */
export const personFieldsPerSite: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    // SQLite adds a NOT NULL column only with a default; every row is filled below.
    for (const column of ['person_last_seen', 'person_is_hot_lead', 'person_site_count']) {
      await db.schema.alterTable('person_sites').addColumn(column, t.int, (c) => c.notNull().defaultTo(0)).execute();
    }
    const person = (column: string) => sql`(select p.${sql.ref(column)} from ${sql.table('people')} p where p.pk = person_sites.person_pk)`;
    await db
      .updateTable('person_sites')
      .set({
        person_last_seen: person('last_seen'),
        person_is_hot_lead: person('is_hot_lead'),
        person_site_count: sql`(select count(*) from ${sql.table('person_sites')} x where x.person_pk = person_sites.person_pk)`,
      })
      .execute();
    const hot = sql<boolean>`person_is_hot_lead = 1`;
    await db.schema.createIndex('person_sites_by_person_last_seen').on('person_sites').columns(['site_pk', 'person_last_seen', 'person_id']).execute();
    await db.schema.createIndex('person_sites_hot_by_person_last_seen').on('person_sites').columns(['site_pk', 'person_last_seen', 'person_id']).where(hot).execute();
    await db.schema.createIndex('person_sites_hot_by_last_seen').on('person_sites').columns(['site_pk', 'last_seen', 'person_id']).where(hot).execute();
  },
};
