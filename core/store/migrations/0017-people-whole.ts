import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';

/**
 * Moves each person's account-view JSON (migration 0016) into `people_whole`, filed in the order an
 * account key's people page reads it (account, `lastSeen`, id), so a page is one range of rows.
 * Filled only where the dialect stores whole people (SQLite); the unique index finds a person's row.
 */
export const peopleWhole: Migration = {
  async up(db: Kysely<any>) {
    const t = dialectOf(db).types;
    await db.schema
      .createTable('people_whole')
      .addColumn('account_id', t.text, (c) => c.notNull())
      .addColumn('last_seen', t.int, (c) => c.notNull())
      .addColumn('id', t.text, (c) => c.notNull())
      .addColumn('json', t.text, (c) => c.notNull())
      .addPrimaryKeyConstraint('people_whole_pk', ['account_id', 'last_seen', 'id'])
      .$call((table) => (t.withoutRowid ? table.modifyEnd(t.withoutRowid) : table))
      .execute();
    await db.schema.createIndex('people_whole_by_id').on('people_whole').columns(['account_id', 'id']).unique().execute();
    // People whose whole JSON is still to be rendered (a database migrating past 0016 now) are
    // filed when it is (stored-text.ts, renderPendingStoredText).
    await sql`insert into ${sql.table('people_whole')} (account_id, last_seen, id, json) select account_id, last_seen, id, json_whole from ${sql.table('people')} where json_whole is not null`.execute(db);
    await db.schema.alterTable('people').dropColumn('json_whole').execute();
  },
};
