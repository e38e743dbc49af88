import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/store/dialect/index.ts';
import { STORED_TEXT_COLUMNS } from '../../core/store/stored-text.ts';
import { accountPersonJsonSql } from '../../core/store/person-row.ts';

/** The migrations a test can take a database back before (those since 0007). */
export type UndoableMigration =
  | '0007_stored_json'
  | '0008_stats_counters'
  | '0009_export_leases'
  | '0010_rate_limits_unindexed'
  | '0011_one_active_key'
  | '0012_person_fields_per_site'
  | '0013_stored_csv'
  | '0014_export_chunks_lz4'
  | '0015_rate_limits_unlogged'
  | '0016_person_json_whole'
  | '0017_people_whole'
  | '0018_stats_blocks'
  | '0019_people_whole_bytes'
  | '0020_drop_people_whole'
  | '0021_webhook_attempt_headers';

/**
 * Takes a migrated database back to what the code before migration `first` left, so a test can
 * open it with today's code and see that migration (and the ones after it) run on old data. Each
 * migration since 0007 has its undoing here; the bookkeeping rows go too.
 */
export async function undoMigrationsFrom(db: Kysely<any>, first: UndoableMigration): Promise<void> {
  // The newest first: what a later migration added may hang on an earlier one's.
  if (first <= '0021_webhook_attempt_headers') {
    await db.schema.alterTable('webhook_attempts').dropColumn('headers').execute();
    await db.schema.alterTable('webhook_deliveries').dropColumn('test').execute();
  }
  if (first <= '0020_drop_people_whole') {
    // Before 0020, people_whole (0017) held each person's account-view JSON on SQLite, empty on
    // Postgres; filed here as text, as before 0019 (what it holds changes nothing going forward).
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
    if (dialectOf(db).name === 'sqlite') await sql`insert into people_whole (account_id, last_seen, id, json) select p.account_id, p.last_seen, p.id, ${accountPersonJsonSql()} from people p`.execute(db);
  }
  if (first <= '0018_stats_blocks') await sql`delete from event_counts where span = ${16 * 86_400}`.execute(db);
  if (first === '0017_people_whole') {
    // 0017 moved the whole JSON out of the people's rows.
    await db.schema.alterTable('people').addColumn('json_whole', dialectOf(db).types.text).execute();
    await sql`update people set json_whole = (select w.json from people_whole w where w.account_id = people.account_id and w.id = people.id)`.execute(db);
  }
  if (first <= '0017_people_whole') await db.schema.dropTable('people_whole').execute();
  if (dialectOf(db).name === 'postgres') {
    if (first <= '0015_rate_limits_unlogged') await sql`alter table rate_limits set logged`.execute(db);
    // 0014 only chose how Postgres compresses chunks written from then on.
    if (first <= '0014_export_chunks_lz4') await sql`alter table export_chunks alter column data set compression default`.execute(db);
  }
  if (first <= '0013_stored_csv') {
    for (const column of ['csv_head', 'csv_tail']) await db.schema.alterTable('people').dropColumn(column).execute();
    await db.schema.alterTable('companies').dropColumn('csv_cells').execute();
  }
  if (first <= '0012_person_fields_per_site') {
    for (const index of ['person_sites_by_person_last_seen', 'person_sites_hot_by_person_last_seen', 'person_sites_hot_by_last_seen']) await db.schema.dropIndex(index).execute();
    for (const column of ['person_last_seen', 'person_is_hot_lead', 'person_site_count']) await db.schema.alterTable('person_sites').dropColumn(column).execute();
  }
  if (first <= '0011_one_active_key') {
    for (const index of ['api_keys_one_active_per_site', 'api_keys_one_active_per_value']) await db.schema.dropIndex(index).execute();
  }
  if (first <= '0010_rate_limits_unindexed') {
    await db.schema.createIndex('rate_limits_by_start').on('rate_limits').columns(['window_started_ms']).execute();
  }
  if (first <= '0009_export_leases') {
    await db.schema.dropIndex('export_jobs_by_status').execute();
    for (const column of ['lease_owner', 'lease_until']) await db.schema.alterTable('export_jobs').dropColumn(column).execute();
  }
  if (first <= '0008_stats_counters') {
    for (const table of ['event_counts', 'site_sets', 'site_set_owners']) await db.schema.dropTable(table).execute();
  }
  if (first <= '0007_stored_json') {
    for (const [table, columns] of Object.entries(STORED_TEXT_COLUMNS)) for (const column of columns) await db.schema.alterTable(table).dropColumn(column).execute();
  }
  await sql`delete from kysely_migration where name >= ${first}`.execute(db);
}
