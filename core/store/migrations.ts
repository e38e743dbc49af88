import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { initial } from './migrations/0001-initial.ts';
import { exportsSchema } from './migrations/0002-exports.ts';
import { companyDefaults } from './migrations/0003-company-defaults.ts';
import { exportSteps } from './migrations/0004-export-steps.ts';
import { webhooksSchema } from './migrations/0005-webhooks.ts';
import { rateLimitsSchema } from './migrations/0006-rate-limits.ts';
import { statsCounters } from './migrations/0008-stats-counters.ts';
import { dialectOf } from './dialect/index.ts';

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
  '0008_stats_counters': statsCounters,
};

class InCodeMigrations implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

/** Brings the schema up to date; safe to call on every start. */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  // On Postgres the migration table lives in the connection's own schema: Kysely otherwise finds
  // another schema's table of that name and takes this schema for migrated.
  const migrationTableSchema = await dialectOf(db).migrationSchema(db);
  const migrator = new Migrator({ db, provider: new InCodeMigrations(), ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

/** Settings every connection needs (SQLite: foreign keys on; WAL is set where the file is opened). */
export async function prepareConnection(db: Kysely<any>): Promise<void> {
  await dialectOf(db).prepareConnection(db);
}
