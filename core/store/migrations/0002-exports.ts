import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/** Exports: the person fields export filters read, page paths, and jobs with their members and files. */
export const exportsSchema: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    // What the export filters select on that the read API does not show.
    await db.schema.alterTable('people').addColumn('campaign', t.text).execute();
    await db.schema.alterTable('people').addColumn('crm_status', t.text, (c) => c.notNull().defaultTo('not_in_crm')).execute();

    // The distinct page paths each person saw, kept as events load, for the `pages` filter.
    await db.schema
      .createTable('person_pages')
      .addColumn('person_pk', t.int, (c) => c.notNull().references('people.pk'))
      .addColumn('path', t.text, (c) => c.notNull())
      .addPrimaryKeyConstraint('person_pages_pk', ['person_pk', 'path'])
      .execute();

    await db.schema
      .createTable('export_jobs')
      .addColumn('id', t.text, (c) => c.primaryKey())
      .addColumn('account_id', t.text, (c) => c.notNull().references('accounts.id'))
      .addColumn('status', t.text, (c) => c.notNull())
      .addColumn('filters', t.text, (c) => c.notNull())
      .addColumn('filename', t.text, (c) => c.notNull())
      .addColumn('created_at', t.int, (c) => c.notNull())
      .addColumn('completed_at', t.int)
      .addColumn('row_count', t.int)
      .addColumn('partial', t.int)
      .addColumn('error', t.text)
      .addColumn('member_count', t.int)
      .addColumn('next_seq', t.int, (c) => c.notNull().defaultTo(0))
      .addColumn('chunk_count', t.int, (c) => c.notNull().defaultTo(0))
      .addColumn('attempts', t.int, (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('export_jobs_by_account').on('export_jobs').columns(['account_id', 'status']).execute();
    await db.schema.createIndex('export_jobs_by_created').on('export_jobs').columns(['created_at']).execute();

    // The people a job selected, in file order: a snapshot taken once, so the CSV can be
    // written in small steps (and resumed after a restart) without sorting again.
    await db.schema
      .createTable('export_members')
      .addColumn('job_id', t.text, (c) => c.notNull())
      .addColumn('seq', t.int, (c) => c.notNull())
      .addColumn('person_pk', t.int, (c) => c.notNull())
      .addColumn('site_pk', t.int, (c) => c.notNull())
      .addPrimaryKeyConstraint('export_members_pk', ['job_id', 'seq'])
      .execute();

    // The CSV file itself, in order, as UTF-8 text chunks.
    await db.schema
      .createTable('export_chunks')
      .addColumn('job_id', t.text, (c) => c.notNull())
      .addColumn('seq', t.int, (c) => c.notNull())
      .addColumn('data', t.text, (c) => c.notNull())
      .addPrimaryKeyConstraint('export_chunks_pk', ['job_id', 'seq'])
      .execute();
  },
};
