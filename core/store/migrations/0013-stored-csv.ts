import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';
import { markStoredTextPending } from '../stored-text.ts';

/**
 * People and companies keep the cells of their export lines as stored text (core/exports/columns.ts),
 * so an export joins text instead of formatting every cell of every row. This adds the columns,
 * empty, and marks the stored text pending: `migrateToLatest` formats it once every migration
 * has run (stored-csv.ts), as it renders the stored JSON of migration 0007.
 */
export const storedCsv: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    await db.schema.alterTable('people').addColumn('csv_head', t.text).execute();
    await db.schema.alterTable('people').addColumn('csv_tail', t.text).execute();
    await db.schema.alterTable('companies').addColumn('csv_cells', t.text).execute();
    await markStoredTextPending(db);
  },
};
