import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Unique indexes enforce what the admin surface checks (one active key a site, no two active keys
 * sharing a value), so concurrent admin requests conflict instead of both writing. Duplicates a
 * race left are revoked first: the newest key of a site stays, the first of a shared value stays.
 */
export const oneActiveKey: Migration = {
  async up(db: Kysely<any>) {
    await sql`update ${sql.table('api_keys')} set revoked_at = (
        select min(n.created_at) from ${sql.table('api_keys')} n where n.site_pk = api_keys.site_pk and n.revoked_at is null and n.pk > api_keys.pk)
      where revoked_at is null and site_pk is not null
        and exists (select 1 from ${sql.table('api_keys')} n where n.site_pk = api_keys.site_pk and n.revoked_at is null and n.pk > api_keys.pk)`.execute(db);
    await sql`update ${sql.table('api_keys')} set revoked_at = created_at
      where revoked_at is null and exists (select 1 from ${sql.table('api_keys')} f where f.hash = api_keys.hash and f.revoked_at is null and f.pk < api_keys.pk)`.execute(db);
    await db.schema.createIndex('api_keys_one_active_per_site').on('api_keys').column('site_pk').unique().where(sql.ref('revoked_at'), 'is', null).execute();
    await db.schema.createIndex('api_keys_one_active_per_value').on('api_keys').column('hash').unique().where(sql.ref('revoked_at'), 'is', null).execute();
  },
};
