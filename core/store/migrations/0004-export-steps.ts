import { type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Export selection in bounded steps: jobs record how far collection walked the people (by pk) and
 * the last key written; members sit in sorted runs the writer merges. Jobs left `processing`
 * start over from collection.
 */
export const exportSteps: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    // The "now" the selection's timeframe is measured from, fixed when collection starts so a
    // resumed collection selects as the first run would have.
    await db.schema.alterTable('export_jobs').addColumn('selected_at', t.int).execute();
    // The highest people pk when collection started (null until then), and how far it has got.
    await db.schema.alterTable('export_jobs').addColumn('collect_until_pk', t.int).execute();
    await db.schema.alterTable('export_jobs').addColumn('collect_after_pk', t.int, (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('export_jobs').addColumn('collected', t.int, (c) => c.notNull().defaultTo(0)).execute();
    // The sort key of the last row in the file (null before the first): where writing resumes.
    await db.schema.alterTable('export_jobs').addColumn('written_k1', t.scalar).execute();
    await db.schema.alterTable('export_jobs').addColumn('written_k2', t.scalar).execute();
    await db.schema.alterTable('export_jobs').addColumn('written_id', t.text).execute();

    await db.schema.dropTable('export_members').execute();
    // Sorted runs: each run of members is kept in file order by the key and the writer merges
    // them, so a collection step appends to a run's last pages. Sort keys are `blob` (no affinity)
    // so SQLite never converts integers to text or back.
    await db.schema
      .createTable('export_members')
      .addColumn('job_id', t.text, (c) => c.notNull())
      .addColumn('run', t.int, (c) => c.notNull())
      .addColumn('k1', t.scalar, (c) => c.notNull())
      .addColumn('k2', t.scalar, (c) => c.notNull())
      .addColumn('person_id', t.text, (c) => c.notNull())
      .addColumn('person_pk', t.int, (c) => c.notNull())
      .addColumn('site_pk', t.int, (c) => c.notNull())
      .addPrimaryKeyConstraint('export_members_pk', ['job_id', 'run', 'k1', 'k2', 'person_id'])
      .$call((table) => (t.withoutRowid ? table.modifyEnd(t.withoutRowid) : table))
      .execute();

    await db.deleteFrom('export_chunks').where('job_id', 'in', db.selectFrom('export_jobs').select('id').where('status', '=', 'processing')).execute();
    await db.updateTable('export_jobs').set({ member_count: null, next_seq: 0, chunk_count: 0 }).where('status', '=', 'processing').execute();
  },
};
