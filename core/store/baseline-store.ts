import { sql } from 'kysely';
import type { Db } from './schema.ts';

/** Baseline copies are named after their table with this prefix, in the same database. */
const PREFIX = '_baseline_';

/**
 * Tables a reset leaves alone: the schema's own bookkeeping, and `meta`, which holds the secret
 * that signs cursors and links (a reset must not change it) and what a demo was seeded with.
 */
const KEPT = new Set(['meta', 'kysely_migration', 'kysely_migration_lock']);

/**
 * Snapshots of every data table (accounts, sites, keys, people, events, exports, webhooks…) kept
 * beside them in the same database, so the admin reset can bring the data back in one transaction.
 */
export class BaselineStore {
  constructor(private readonly db: Db) {}

  /** Replaces the snapshot with what the tables hold now, in one transaction. */
  async save(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const { name } of await sql<{ name: string }>`select name from sqlite_master where type = 'table' and substr(name, 1, ${PREFIX.length}) = ${PREFIX}`.execute(trx).then((r) => r.rows)) {
        await sql`drop table ${sql.id(name)}`.execute(trx);
      }
      for (const table of await this.#tables(trx)) {
        await sql`create table ${sql.id(PREFIX + table)} as select * from ${sql.id(table)}`.execute(trx);
      }
    });
  }

  /**
   * Puts every table back as the snapshot holds it, in one transaction (foreign keys checked at
   * its end, so the order of tables does not matter). Tables added since the snapshot are emptied.
   */
  async restore(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await sql`pragma defer_foreign_keys = on`.execute(trx);
      for (const table of await this.#tables(trx)) {
        await sql`delete from ${sql.id(table)}`.execute(trx);
        const saved = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${PREFIX + table}`.execute(trx);
        if (saved.rows[0]!.n > 0) await sql`insert into ${sql.id(table)} select * from ${sql.id(PREFIX + table)}`.execute(trx);
      }
    });
  }

  async #tables(db: Db): Promise<string[]> {
    const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and substr(name, 1, 7) <> 'sqlite_' and substr(name, 1, ${PREFIX.length}) <> ${PREFIX} order by name`.execute(db);
    return rows.rows.map((r) => r.name).filter((name) => !KEPT.has(name));
  }
}
