import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * The first schema. Every list query has an index whose order is the list's order,
 * so a page is one keyset range scan: `(last_seen, id) < (?, ?)` walking the index backwards.
 */
export const initial: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    await db.schema
      .createTable('meta')
      .addColumn('key', t.text, (c) => c.primaryKey())
      .addColumn('value', t.text, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('accounts')
      .addColumn('id', t.text, (c) => c.primaryKey())
      .addColumn('name', t.text, (c) => c.notNull())
      .addColumn('created_at', t.int, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('sites')
      .addColumn('pk', t.int, (c) => t.rowKey(c))
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('domain', t.text, (c) => c.notNull())
      .addColumn('client_ref', t.text)
      .addColumn('created_at', t.int, (c) => c.notNull())
      .addUniqueConstraint('sites_account_domain', ['account_id', 'domain'])
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('pk', t.int, (c) => t.rowKey(c))
      .addColumn('id', t.text, (c) => c.notNull().unique())
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('site_pk', t.int, (c) => c.references('sites.pk'))
      .addColumn('lookup', t.text, (c) => c.notNull())
      .addColumn('hash', t.text, (c) => c.notNull())
      .addColumn('label', t.text)
      .addColumn('created_at', t.int, (c) => c.notNull())
      .addColumn('revoked_at', t.int)
      .addColumn('replaced_by', t.text)
      .execute();
    await db.schema.createIndex('api_keys_lookup').on('api_keys').columns(['lookup']).execute();

    await db.schema
      .createTable('companies')
      .addColumn('pk', t.int, (c) => t.rowKey(c))
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('id', t.text, (c) => c.notNull())
      .addColumn('name', t.text, (c) => c.notNull())
      .addColumn('domain', t.text)
      .addColumn('standardized_industry', t.text)
      .addColumn('location', t.text)
      .addColumn('region', t.text)
      .addColumn('linkedin_url', t.text)
      .addColumn('employee_count', t.int)
      .addColumn('is_hot_company', t.int, (c) => c.notNull().defaultTo(0))
      .addColumn('traffic_type', t.text)
      .addColumn('ad_platform', t.text)
      .addColumn('visit_count', t.int, (c) => c.notNull().defaultTo(0))
      .addColumn('first_seen', t.int, (c) => c.notNull())
      .addColumn('last_seen', t.int, (c) => c.notNull())
      .addColumn('loaded_at', t.int, (c) => c.notNull())
      .addUniqueConstraint('companies_account_id', ['account_id', 'id'])
      .execute();
    await db.schema
      .createIndex('companies_by_last_seen')
      .on('companies')
      .columns(['account_id', 'last_seen', 'id'])
      .execute();

    await db.schema
      .createTable('company_sites')
      .addColumn('company_pk', t.int, (c) => c.notNull().references('companies.pk'))
      .addColumn('site_pk', t.int, (c) => c.notNull().references('sites.pk'))
      .addColumn('company_id', t.text, (c) => c.notNull())
      .addColumn('visit_count', t.int, (c) => c.notNull())
      .addColumn('first_seen', t.int, (c) => c.notNull())
      .addColumn('last_seen', t.int, (c) => c.notNull())
      .addPrimaryKeyConstraint('company_sites_pk', ['company_pk', 'site_pk'])
      .execute();
    await db.schema
      .createIndex('company_sites_by_last_seen')
      .on('company_sites')
      .columns(['site_pk', 'last_seen', 'company_id'])
      .execute();

    await db.schema
      .createTable('people')
      .addColumn('pk', t.int, (c) => t.rowKey(c))
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('id', t.text, (c) => c.notNull())
      .addColumn('email', t.text)
      .addColumn('business_email', t.text)
      .addColumn('personal_email', t.text)
      .addColumn('first_name', t.text)
      .addColumn('last_name', t.text)
      .addColumn('title', t.text)
      .addColumn('company', t.text)
      .addColumn('location', t.text)
      .addColumn('region', t.text)
      .addColumn('linkedin_url', t.text)
      .addColumn('phone', t.text)
      .addColumn('profile_image_url', t.text)
      .addColumn('visit_count', t.int, (c) => c.notNull())
      .addColumn('first_seen', t.int, (c) => c.notNull())
      .addColumn('last_seen', t.int, (c) => c.notNull())
      .addColumn('is_hot_lead', t.int, (c) => c.notNull().defaultTo(0))
      .addColumn('classified_seniority', t.text)
      .addColumn('classified_job_function', t.text)
      .addColumn('traffic_type', t.text)
      .addColumn('ad_platform', t.text)
      .addColumn('company_pk', t.int, (c) => c.references('companies.pk'))
      .addColumn('last_site_pk', t.int, (c) => c.notNull().references('sites.pk'))
      .addUniqueConstraint('people_account_id', ['account_id', 'id'])
      .execute();
    await db.schema
      .createIndex('people_by_last_seen')
      .on('people')
      .columns(['account_id', 'last_seen', 'id'])
      .execute();
    await db.schema
      .createIndex('people_hot_by_last_seen')
      .on('people')
      .columns(['account_id', 'is_hot_lead', 'last_seen', 'id'])
      .execute();
    await db.schema.createIndex('people_by_company').on('people').columns(['company_pk']).execute();

    await db.schema
      .createTable('person_sites')
      .addColumn('person_pk', t.int, (c) => c.notNull().references('people.pk'))
      .addColumn('site_pk', t.int, (c) => c.notNull().references('sites.pk'))
      .addColumn('person_id', t.text, (c) => c.notNull())
      .addColumn('visit_count', t.int, (c) => c.notNull())
      .addColumn('first_seen', t.int, (c) => c.notNull())
      .addColumn('last_seen', t.int, (c) => c.notNull())
      .addPrimaryKeyConstraint('person_sites_pk', ['person_pk', 'site_pk'])
      .execute();
    await db.schema
      .createIndex('person_sites_by_last_seen')
      .on('person_sites')
      .columns(['site_pk', 'last_seen', 'person_id'])
      .execute();
    // Finds a person's most recent site among some, in order, for attribution.
    await db.schema
      .createIndex('person_sites_by_person_recency')
      .on('person_sites')
      .columns(['person_pk', 'last_seen', 'site_pk'])
      .execute();

    await db.schema
      .createTable('events')
      .addColumn('pk', t.int, (c) => t.rowKey(c))
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('person_pk', t.int, (c) => c.notNull().references('people.pk'))
      .addColumn('site_pk', t.int, (c) => c.notNull().references('sites.pk'))
      .addColumn('event_id', t.text, (c) => c.notNull())
      .addColumn('event_type', t.text, (c) => c.notNull())
      .addColumn('ts', t.int, (c) => c.notNull())
      .addColumn('body', t.text, (c) => c.notNull())
      .addUniqueConstraint('events_account_event_id', ['account_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('events_journey')
      .on('events')
      .columns(['person_pk', 'ts', 'event_id'])
      .execute();
    await db.schema
      .createIndex('events_journey_by_site')
      .on('events')
      .columns(['person_pk', 'site_pk', 'ts', 'event_id'])
      .execute();
    await db.schema
      .createIndex('events_journey_by_type')
      .on('events')
      .columns(['person_pk', 'event_type', 'ts', 'event_id'])
      .execute();
    // Stats count recent events per account and per site: a range scan on time.
    await db.schema.createIndex('events_account_ts').on('events').columns(['account_id', 'ts']).execute();
    await db.schema.createIndex('events_site_ts').on('events').columns(['site_pk', 'ts']).execute();
  },
};
