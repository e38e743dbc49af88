import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The database keeps the rules the admin surface checks: a site has at most one active key, and
 * no two active keys share a value (issuing a revoked key's value again is refused by the check
 * alone). Checked by reading before writing, two admin requests at once (in one process or two)
 * could both pass and both write; unique indexes make the second write a conflict.
 *
 * Rows a race may already have left are settled first, so the indexes can be built: of a site's
 * active keys the newest stays and the older are revoked as of its issue; of active keys sharing a
 * value the first issued stays and the later are revoked as of their own issue.
 */
export const oneActiveKey: Migration = {
  async up(db: Kysely<any>) {
    await sql`update api_keys set revoked_at = (
        select min(n.created_at) from api_keys n where n.site_pk = api_keys.site_pk and n.revoked_at is null and n.pk > api_keys.pk)
      where revoked_at is null and site_pk is not null
        and exists (select 1 from api_keys n where n.site_pk = api_keys.site_pk and n.revoked_at is null and n.pk > api_keys.pk)`.execute(db);
    await sql`update api_keys set revoked_at = created_at
      where revoked_at is null and exists (select 1 from api_keys f where f.hash = api_keys.hash and f.revoked_at is null and f.pk < api_keys.pk)`.execute(db);
    await db.schema.createIndex('api_keys_one_active_per_site').on('api_keys').column('site_pk').unique().where(sql.ref('revoked_at'), 'is', null).execute();
    await db.schema.createIndex('api_keys_one_active_per_value').on('api_keys').column('hash').unique().where(sql.ref('revoked_at'), 'is', null).execute();
  },
};
