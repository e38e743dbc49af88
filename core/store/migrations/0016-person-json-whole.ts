import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect/index.ts';
import { markStoredTextPending } from '../stored-text.ts';

/**
 * People keep their account-view JSON whole too (`json_whole`, person-row.ts) where the dialect
 * says so (SQLite), so an account key's page reads one text a person instead of joining four. The
 * column starts empty and marked pending; `migrateToLatest` renders it after every migration.
 */
export const personJsonWhole: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('people').addColumn('json_whole', dialectOf(db).types.text).execute();
    await markStoredTextPending(db);
  },
};
