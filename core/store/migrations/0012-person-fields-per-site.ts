import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Each `person_sites` row carries what people lists order and filter its person by: the person's
 * latest visit anywhere (`people.last_seen`), whether they are a hot lead, and how many sites
 * they visited. Rows are written with their person (ingest-store.ts), so the copies never drift
 * from the person's own.
 *
 * - An account key's list under a `domain` or `client_ref` filter is ordered by the person's
 *   latest visit anywhere: it walked every person of the account and kept those seen on the
 *   sites, reading past everyone seen elsewhere (twenty people a hit for a site one in twenty
 *   visited); now it merges the sites' own ranges of `(site_pk, person_last_seen, person_id)`, as a
 *   scoped key's list does (scoped-activity.ts).
 * - `hot_leads=true` on a per-site walk read each row's person to test the flag, four of five for
 *   nothing in the demo data; partial indexes hold the hot leads' rows alone.
 * - A walk over several sites looked up, for each row, whether it is its person's latest among
 *   them, and a scoped key's page summed each person's figures over them; a person seen on one
 *   site alone (four in five in the demo data) needs neither.
 */
export const personFieldsPerSite: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    // SQLite adds a NOT NULL column only with a default; every row is filled below.
    for (const column of ['person_last_seen', 'person_is_hot_lead', 'person_site_count']) {
      await db.schema.alterTable('person_sites').addColumn(column, t.int, (c) => c.notNull().defaultTo(0)).execute();
    }
    const person = (column: string) => sql`(select p.${sql.ref(column)} from people p where p.pk = person_sites.person_pk)`;
    await db
      .updateTable('person_sites')
      .set({
        person_last_seen: person('last_seen'),
        person_is_hot_lead: person('is_hot_lead'),
        person_site_count: sql`(select count(*) from person_sites x where x.person_pk = person_sites.person_pk)`,
      })
      .execute();
    const hot = sql<boolean>`person_is_hot_lead = 1`;
    await db.schema.createIndex('person_sites_by_person_last_seen').on('person_sites').columns(['site_pk', 'person_last_seen', 'person_id']).execute();
    await db.schema.createIndex('person_sites_hot_by_person_last_seen').on('person_sites').columns(['site_pk', 'person_last_seen', 'person_id']).where(hot).execute();
    await db.schema.createIndex('person_sites_hot_by_last_seen').on('person_sites').columns(['site_pk', 'last_seen', 'person_id']).where(hot).execute();
  },
};
