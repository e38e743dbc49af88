import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Company fields as the spec types them: text with no value is `''` and a missing employee count
 * `0`, the values the loader now stores. Rows loaded before (the demo database among them) held
 * nulls there; this rewrites them once, so every database answers the same.
 */
export const companyDefaults: Migration = {
  async up(db: Kysely<any>) {
    await db
      .updateTable('companies')
      .set({
        domain: sql`coalesce(domain, '')`,
        standardized_industry: sql`coalesce(standardized_industry, '')`,
        location: sql`coalesce(location, '')`,
        region: sql`coalesce(region, '')`,
        linkedin_url: sql`coalesce(linkedin_url, '')`,
        employee_count: sql`coalesce(employee_count, 0)`,
        traffic_type: sql`coalesce(traffic_type, '')`,
        ad_platform: sql`coalesce(ad_platform, '')`,
      })
      .where((eb) =>
        eb.or(
          ['domain', 'standardized_industry', 'location', 'region', 'linkedin_url', 'employee_count', 'traffic_type', 'ad_platform'].map((column) =>
            eb(column, 'is', null),
          ),
        ),
      )
      .execute();
  },
};
