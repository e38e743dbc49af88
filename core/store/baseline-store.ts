import { sql } from 'kysely';
import { dialectOf } from './dialect/index.ts';
import { tablesSchemaSql } from './in-schema.ts';
import type { Db } from './schema.ts';

/** Baseline copies are named after their table with this prefix, in the same database (schema, on Postgres). */
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

  /**
   * Replaces the snapshot with what the tables hold now, in one transaction. Processes starting
   * at once on one database each save one: the first statement writes one `meta` row, whose row
   * lock makes the others wait until this one commits (on Postgres two sessions creating the same
   * table at once fail on a unique index of the catalog).
   */
  async save(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('meta').values({ key: 'baseline', value: 'saved' }).onConflict((oc) => oc.column('key').doUpdateSet({ value: 'saved' })).execute();
      const all = await dialectOf(trx).tableNames(trx);
      for (const name of all.filter((n) => n.startsWith(PREFIX))) await sql`drop table ${sql.table(name)}`.execute(trx);
      for (const table of dataTables(all)) await sql`create table ${sql.table(PREFIX + table)} as select * from ${sql.table(table)}`.execute(trx);
    });
  }

  /**
   * Puts every table back as the snapshot holds it, in one transaction. Tables added since the
   * snapshot are emptied. SQLite checks foreign keys at the end; Postgres empties every table in
   * one TRUNCATE, refills parents before children and moves identity sequences past the restored keys.
   */
  async restore(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const dialect = dialectOf(trx);
      const all = await dialect.tableNames(trx);
      const saved = new Set(all.filter((n) => n.startsWith(PREFIX)).map((n) => n.slice(PREFIX.length)));
      let tables = dataTables(all);
      if (dialect.name === 'sqlite') {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        for (const table of tables) await sql`delete from ${sql.table(table)}`.execute(trx);
      } else {
        tables = parentsFirst(tables, await foreignKeys(trx));
        if (tables.length > 0) await sql`truncate table ${sql.join(tables.map((t) => sql.table(t)))}`.execute(trx);
      }
      for (const table of tables.filter((t) => saved.has(t))) await sql`insert into ${sql.table(table)} select * from ${sql.table(PREFIX + table)}`.execute(trx);
      if (dialect.name === 'postgres') await advanceIdentities(trx, tables);
    });
  }
}

function dataTables(all: string[]): string[] {
  return all.filter((name) => !name.startsWith(PREFIX) && !KEPT.has(name));
}

/** Postgres: which table references which, in the tables' schema. */
async function foreignKeys(db: Db): Promise<{ child: string; parent: string }[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    where k.contype = 'f' and k.connamespace = (select oid from pg_namespace where nspname = ${tablesSchemaSql(db)})`.execute(db);
  return rows;
}

/** The tables ordered so that each comes after every table it references. */
function parentsFirst(tables: string[], edges: { child: string; parent: string }[]): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (done.has(table) || path.has(table)) return;
    path.add(table);
    for (const e of edges) if (e.child === table && e.parent !== table && tables.includes(e.parent)) visit(e.parent, path);
    done.add(table);
    order.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return order;
}

/** Postgres: each identity column's sequence moved past the largest key the restore put back. */
async function advanceIdentities(db: Db, tables: string[]): Promise<void> {
  const { rows } = await sql<{ table: string; column: string }>`
    select table_name as "table", column_name as "column" from information_schema.columns
    where table_schema = ${tablesSchemaSql(db)} and is_identity = 'YES'`.execute(db);
  for (const { table, column } of rows.filter((r) => tables.includes(r.table))) {
    await sql`select setval(pg_get_serial_sequence(format('%I.%I', ${tablesSchemaSql(db)}, cast(${table} as text)), ${column}), coalesce((select max(${sql.id(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
  }
}
