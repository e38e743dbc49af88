import type { Kysely, Migration } from 'kysely';
import { initial } from './migrations/0001-initial.ts';
import { exportsSchema } from './migrations/0002-exports.ts';
import { companyDefaults } from './migrations/0003-company-defaults.ts';
import { exportSteps } from './migrations/0004-export-steps.ts';
import { webhooksSchema } from './migrations/0005-webhooks.ts';
import { rateLimitsSchema } from './migrations/0006-rate-limits.ts';
import { storedJson } from './migrations/0007-stored-json.ts';
import { statsCounters } from './migrations/0008-stats-counters.ts';
import { exportLeases } from './migrations/0009-export-leases.ts';
import { rateLimitsUnindexed } from './migrations/0010-rate-limits-unindexed.ts';
import { oneActiveKey } from './migrations/0011-one-active-key.ts';
import { personFieldsPerSite } from './migrations/0012-person-fields-per-site.ts';
import { storedCsv } from './migrations/0013-stored-csv.ts';
import { exportChunksLz4 } from './migrations/0014-export-chunks-lz4.ts';
import { rateLimitsUnlogged } from './migrations/0015-rate-limits-unlogged.ts';
import { personJsonWhole } from './migrations/0016-person-json-whole.ts';
import { peopleWhole } from './migrations/0017-people-whole.ts';
import { statsBlocks } from './migrations/0018-stats-blocks.ts';
import { peopleWholeBytes } from './migrations/0019-people-whole-bytes.ts';
import { dropPeopleWhole } from './migrations/0020-drop-people-whole.ts';
import { webhookAttemptHeaders } from './migrations/0021-webhook-attempt-headers.ts';
import { dialectOf } from './dialect/index.ts';
import { retryingSerializationFailures, runMigrations } from './migrator.ts';
import { renderPendingStoredText } from './stored-text.ts';

/**
 * The schema's history, one file per migration under `migrations/`, applied in name order.
 * A migration, once released, never changes: a new one follows it.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_exports': exportsSchema,
  '0003_company_defaults': companyDefaults,
  '0004_export_steps': exportSteps,
  '0005_webhooks': webhooksSchema,
  '0006_rate_limits': rateLimitsSchema,
  '0007_stored_json': storedJson,
  '0008_stats_counters': statsCounters,
  '0009_export_leases': exportLeases,
  '0010_rate_limits_unindexed': rateLimitsUnindexed,
  '0011_one_active_key': oneActiveKey,
  '0012_person_fields_per_site': personFieldsPerSite,
  '0013_stored_csv': storedCsv,
  '0014_export_chunks_lz4': exportChunksLz4,
  '0015_rate_limits_unlogged': rateLimitsUnlogged,
  '0016_person_json_whole': personJsonWhole,
  '0017_people_whole': peopleWhole,
  '0018_stats_blocks': statsBlocks,
  '0019_people_whole_bytes': peopleWholeBytes,
  '0020_drop_people_whole': dropPeopleWhole,
  '0021_webhook_attempt_headers': webhookAttemptHeaders,
};

/** The names of every migration, in the order they run. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

/**
 * Brings the schema up to date; safe to call on every start, and from several processes starting
 * at once on one database (see {@link runMigrations}).
 */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  if (await dialectOf(db).isReadOnlyStandby(db)) {
    throw new Error('the database is a read-only standby: give its primary as the database, and the standby as the read database (readDatabase, --read-db)');
  }
  try {
    await runMigrations(db, migrations);
  } catch (error) {
    throw new Error(`database migration failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // Stored JSON a migration added or cleared is rendered with the schema now complete. Processes
  // that migrated together may all find it pending; under serializable isolation all but the
  // first to finish are aborted (the pending mark they delete is gone), and run again find it done.
  await retryingSerializationFailures(() => renderPendingStoredText(db));
}

/** Settings every connection needs (SQLite: foreign keys on; WAL is set where the file is opened). */
export async function prepareConnection(db: Kysely<any>): Promise<void> {
  await dialectOf(db).prepareConnection(db);
}
