import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';
import { markStoredTextPending } from '../stored-text.ts';

/**
 * People and companies keep their export cells as stored text (core/exports/columns.ts), so an
 * export joins text instead of formatting cells. The columns start empty and pending, filled by
 * `migrateToLatest` (stored-csv.ts).
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
