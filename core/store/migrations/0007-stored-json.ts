import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';
import { markStoredTextPending, STORED_TEXT_COLUMNS } from '../stored-text.ts';

/**
 * People and companies keep their JSON as stored text (person-row.ts, company-row.ts), so a page
 * joins text instead of rendering rows. The columns start empty and pending: `migrateToLatest`
 * renders them after every migration, with the code running then.
 */
export const storedJson: Migration = {
  async up(db: Kysely<any>) {
    const run = async (trx: Kysely<any>) => {
      const t = dialectOf(trx).types;
      for (const [table, columns] of Object.entries(STORED_TEXT_COLUMNS)) {
        for (const column of columns) await trx.schema.alterTable(table).addColumn(column, t.text).execute();
      }
      await markStoredTextPending(trx);
    };
    // Postgres runs each migration in a transaction; on SQLite this one makes its own.
    await (db.isTransaction ? run(db) : db.transaction().execute(run));
  },
};
