import type { Kysely, Migration } from 'kysely';

/** Exports: the person fields export filters read, page paths, and jobs with their members and files. */
export const exportsSchema: Migration = {
  async up(db: Kysely<any>) {
    // What the export filters select on that the read API does not show.
    await db.schema.alterTable('people').addColumn('campaign', 'text').execute();
    await db.schema.alterTable('people').addColumn('crm_status', 'text', (c) => c.notNull().defaultTo('not_in_crm')).execute();

    // The distinct page paths each person saw, kept as events load, for the `pages` filter.
    await db.schema
      .createTable('person_pages')
      .addColumn('person_pk', 'integer', (c) => c.notNull().references('people.pk'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('person_pages_pk', ['person_pk', 'path'])
      .execute();

    await db.schema
      .createTable('export_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('filters', 'text', (c) => c.notNull())
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('completed_at', 'integer')
      .addColumn('row_count', 'integer')
      .addColumn('partial', 'integer')
      .addColumn('error', 'text')
      .addColumn('member_count', 'integer')
      .addColumn('next_seq', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('chunk_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('export_jobs_by_account').on('export_jobs').columns(['account_id', 'status']).execute();
    await db.schema.createIndex('export_jobs_by_created').on('export_jobs').columns(['created_at']).execute();

    // The people a job selected, in file order: a snapshot taken once, so the CSV can be
    // written in small steps (and resumed after a restart) without sorting again.
    await db.schema
      .createTable('export_members')
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('person_pk', 'integer', (c) => c.notNull())
      .addColumn('site_pk', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('export_members_pk', ['job_id', 'seq'])
      .execute();

    // The CSV file itself, in order, as UTF-8 text chunks.
    await db.schema
      .createTable('export_chunks')
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('export_chunks_pk', ['job_id', 'seq'])
      .execute();
  },
};
