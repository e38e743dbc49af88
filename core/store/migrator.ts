import type { CreateTableBuilder, Kysely, Migration } from 'kysely';
import { dialectOf } from './dialect/index.ts';

/**
 * Kysely's names for the bookkeeping tables, kept so a database its Migrator migrated (every
 * database made before this runner) carries on, and the other way round.
 */
const MIGRATION_TABLE = 'kysely_migration';
const LOCK_TABLE = 'kysely_migration_lock';
const LOCK_ROW = 'migration_lock';

/** How often a migration transaction the database aborted as a serialization failure is run again. */
const ATTEMPTS = 5;

/**
 * Applies pending migrations in name order, one transaction each, and records them; safe when
 * several processes start at once. Not Kysely's Migrator: on Postgres it holds a session-level
 * advisory lock across its transaction (CockroachDB has none, Citus keeps them per node, and
 * behind a pooler in transaction mode the unlock can reach another server connection than the
 * lock), and it runs SQLite migrations outside a transaction. Here each transaction first locks a
 * lock-table row, which serializes runs on any Postgres-compatible engine; an aborted waiter retries.
 */
export async function runMigrations(db: Kysely<any>, migrations: Record<string, Migration>): Promise<void> {
  const dialect = dialectOf(db);
  const schema = await dialect.migrationSchema(db);
  const own = (k: Kysely<any>) => (schema ? k.withSchema(schema) : k);
  const names = Object.keys(migrations).sort();
  await retryingSerializationFailures(async () => {
    await createIfAbsent(db, MIGRATION_TABLE, own(db).schema.createTable(MIGRATION_TABLE).ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      // An ISO 8601 text, as Kysely writes it.
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull()));
    await createIfAbsent(db, LOCK_TABLE, own(db).schema.createTable(LOCK_TABLE).ifNotExists()
      .addColumn('id', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('is_locked', 'integer', (c) => c.notNull().defaultTo(0)));
    await own(db).insertInto(LOCK_TABLE).values({ id: LOCK_ROW, is_locked: 0 }).onConflict((oc) => oc.column('id').doNothing()).execute();
  });

  /** Applies the next pending migration, if any, in one transaction; whether one was. */
  const applyNext = () => db.transaction().execute(async (trx) => {
    // The lock: concurrent runs queue here until this transaction ends (a rollback included). A
    // locking read, not a write, since CockroachDB refuses schema changes after a write.
    await dialect.lockRows(own(trx).selectFrom(LOCK_TABLE).select('id').where('id', '=', LOCK_ROW)).execute();
    const applied = (await own(trx).selectFrom(MIGRATION_TABLE).select('name').execute()).map((r: { name: string }) => r.name).sort();
    applied.forEach((name, i) => {
      if (!(name in migrations)) throw new Error(`the database was migrated by a newer version of this code (it has migration ${name}, unknown here)`);
      if (names[i] !== name) throw new Error(`migration ${names[i]} is missing from the database, which has the later ${name}`);
    });
    const name = names[applied.length];
    if (name === undefined) return false;
    try {
      await migrations[name]!.up(trx);
    } catch (error) {
      throw new Error(`at ${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    await own(trx).insertInto(MIGRATION_TABLE).values({ name, timestamp: new Date().toISOString() }).execute();
    // Written last, after every schema change: a run that waited on the lock under serializable
    // isolation read the migrations before this commit, and this write aborts it (to run again).
    await own(trx).updateTable(LOCK_TABLE).set({ is_locked: 0 }).where('id', '=', LOCK_ROW).execute();
    return true;
  });
  // Every abort of a waiting run means another run applied a migration, so a run sees at most one per migration.
  await retryingSerializationFailures(async () => {
    while (await applyNext());
  }, ATTEMPTS + names.length);
}

/** The names of the migrations a database records as applied, sorted; a database never migrated has none. */
export async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  const dialect = dialectOf(db);
  if (!(await dialect.tableNames(db)).includes(MIGRATION_TABLE)) return [];
  const schema = await dialect.migrationSchema(db);
  const rows = await (schema ? db.withSchema(schema) : db).selectFrom(MIGRATION_TABLE).select('name').execute();
  return rows.map((r: { name: string }) => r.name).sort();
}

/**
 * Creates a bookkeeping table unless there. On Postgres `create table if not exists` still fails
 * (a unique violation on `pg_type`) when another session creates the same table at that moment:
 * the failure is fine once the table is there.
 */
async function createIfAbsent(db: Kysely<any>, name: string, create: CreateTableBuilder<string, never>): Promise<void> {
  try {
    await create.execute();
  } catch (error) {
    if (!(await dialectOf(db).tableNames(db)).includes(name)) throw error;
  }
}

/** SQLSTATEs of a transaction the database aborted so that it can be run again: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);

/** Runs `run` again (after a short random pause) while it fails with a {@link RETRYABLE} error, `attempts` times at most. */
export async function retryingSerializationFailures(run: () => Promise<void>, attempts = ATTEMPTS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
      if (attempt >= attempts || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
    }
  }
}
