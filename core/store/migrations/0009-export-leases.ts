import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Export jobs are claimed with a lease, so any API process sharing the database can run them,
 * each job by one process at a time, and a job whose process died is taken over once its lease
 * has run out. A job's progress is written only by the lease's holder.
 */
export const exportLeases: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    // The runner holding the job, and until when (epoch seconds of the API's clock); null when free.
    await db.schema.alterTable('export_jobs').addColumn('lease_owner', t.text).execute();
    await db.schema.alterTable('export_jobs').addColumn('lease_until', t.int).execute();
    // Runners look for jobs to claim by status, across accounts.
    await db.schema.createIndex('export_jobs_by_status').on('export_jobs').columns(['status', 'lease_until']).execute();
  },
};
