/**
 * The benchmark databases on PostgreSQL. Each is a copy of the SQLite benchmark file of the same
 * seed and size (bench/data.ts builds those through the admin surface), so both backends hold
 * the same rows under the same keys and a run's assertions compare like with like. The copy is
 * kept on the server as a database named after the file and reused by later runs; it is built
 * under a temporary name and renamed only once complete, so an interrupted copy is never reused.
 *
 * A copy rather than the admin surface puts the very rows of the SQLite file (keys, pks, stored
 * bodies) on the server, so the floors of both backends read the same data and the SQLite build
 * is not done twice. Batches of rows go as one JSON parameter that the server turns into rows
 * (`json_populate_recordset`): no COPY encoder to write.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Presets, SingleBar } from 'cli-progress';
import pg from 'pg';
import { createApi } from '../adapters/node/index.ts';

/** Where a run's PostgreSQL databases live: the server (any database on it to connect to) and the names' prefix. */
export interface PostgresTarget {
  /** `postgres://user@host:port/db`: the bench creates its databases beside `db`, so the role needs CREATEDB. */
  url: string;
  /** Start of every database name the bench creates; tests use one of their own and drop them all after. */
  prefix: string;
}

/** The prefix of the benchmark's cached databases. */
export const DEFAULT_PREFIX = 'vi_bench_';

/** Bump when the copy changes what it writes, so databases copied before are not reused. */
const COPY_VERSION = 1;
/** Rows per INSERT: one JSON parameter of a few MB at most for events. */
const BATCH = 2_000;
/** Postgres names are at most 63 bytes. */
const MAX_NAME = 63;

/** `url` with its database replaced by `name`. */
export function databaseUrl(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** The database name a SQLite bench file is copied to: its file name made a Postgres identifier, hashed when too long. */
export function databaseName(target: PostgresTarget, file: string): string {
  const slug = `${basename(file).replace(/\.sqlite$/, '')}-c${COPY_VERSION}`.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  const name = target.prefix + slug;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(slug).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/** A client on the server's named database, checked to answer, with a clear message when it does not. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`cannot connect to PostgreSQL for the benchmark (${redact(url)}): ${error instanceof Error ? error.message : String(error)}`);
  }
  return client;
}

/**
 * The URL of the PostgreSQL copy of the SQLite bench file `sqlitePath`, copied first when the
 * server does not hold it yet.
 */
export async function postgresCopy(target: PostgresTarget, sqlitePath: string, options: { progress?: boolean } = {}): Promise<string> {
  const name = databaseName(target, sqlitePath);
  const admin = await connect(target.url);
  try {
    if (await exists(admin, name)) return databaseUrl(target.url, name);
    const building = `${name.slice(0, MAX_NAME - 9)}_building`;
    await admin.query(`drop database if exists ${ident(building)}`);
    await admin.query(`create database ${ident(building)}`);
    try {
      await fill(databaseUrl(target.url, building), sqlitePath, options.progress !== false);
      await admin.query(`alter database ${ident(building)} rename to ${ident(name)}`);
    } catch (error) {
      await admin.query(`drop database if exists ${ident(building)}`).catch(() => undefined);
      throw error;
    }
    return databaseUrl(target.url, name);
  } finally {
    await admin.end();
  }
}

/** Drops every database whose name starts with `prefix` (a test's own, after it); names them. */
export async function dropDatabases(url: string, prefix: string): Promise<string[]> {
  const admin = await connect(url);
  try {
    const { rows } = await admin.query<{ name: string }>('select datname as name from pg_database where starts_with(datname, $1)', [prefix]);
    for (const { name } of rows) await admin.query(`drop database if exists ${ident(name)} with (force)`);
    return rows.map((r) => r.name);
  } finally {
    await admin.end();
  }
}

async function exists(admin: pg.Client, name: string): Promise<boolean> {
  const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
  return rowCount === 1;
}

/**
 * Migrates the new database and the SQLite file through the API (so both schemas are the API's
 * own, with every stored text rendered), then copies every table of the SQLite file, parents
 * first (SQLite's creation order), keys included, moves the identity sequences past the copied
 * keys, and analyzes, so the planner knows the sizes.
 */
async function fill(url: string, sqlitePath: string, progress: boolean): Promise<void> {
  // A file cached by older code lacks a newer migration's columns, which the copy would leave empty.
  for (const database of [url, sqlitePath]) await (await createApi({ database })).close();
  const source = new BetterSqlite3(sqlitePath, { readonly: true });
  const client = await connect(url);
  try {
    const tables = source
      .prepare<[], { name: string }>("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by rowid")
      .all()
      .map((t) => t.name);
    const counts = new Map(tables.map((t) => [t, source.prepare<[], { n: number }>(`select count(*) as n from "${t}"`).get()!.n]));
    const bar = progress && !process.env.CI && process.stderr.isTTY ? new SingleBar({ stream: process.stderr, format: `PostgreSQL copy of ${basename(sqlitePath)} {table} [{bar}] {value}/{total} rows`, hideCursor: true }, Presets.shades_classic) : undefined;
    bar?.start([...counts.values()].reduce((a, b) => a + b, 0), 0, { table: '' });
    // Opening the API may have written rows (its cursor secret): the copy replaces them all.
    await client.query(`truncate ${tables.map(ident).join(', ')} cascade`);
    let copied = 0;
    for (const table of tables) {
      // What the API leaves empty on PostgreSQL, the copy does too.
      const columns = await sharedColumns(client, source, table);
      const list = columns.map(ident).join(', ');
      const insert = `insert into ${ident(table)} (${list}) select ${list} from json_populate_recordset(null::${ident(table)}, $1::json)`;
      let batch: unknown[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await client.query(insert, [JSON.stringify(batch)]);
        copied += batch.length;
        bar?.update(copied, { table });
        batch = [];
      };
      await client.query('begin');
      for (const row of source.prepare(`select ${columns.map((c) => `"${c}"`).join(', ')} from "${table}"`).iterate()) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      await flush();
      await client.query('commit');
    }
    bar?.stop();
    await advanceIdentities(client);
    await client.query('vacuum analyze');
  } finally {
    source.close();
    await client.end();
  }
}

/** The columns `table` has on both sides, in the Postgres table's order. */
async function sharedColumns(client: pg.Client, source: BetterSqlite3.Database, table: string): Promise<string[]> {
  const inSqlite = new Set(source.prepare<[], { name: string }>(`select name from pragma_table_info('${table.replace(/'/g, "''")}')`).all().map((c) => c.name));
  const { rows } = await client.query<{ name: string }>(
    'select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position',
    [table],
  );
  if (rows.length === 0) throw new Error(`table ${table} of the SQLite bench file has no PostgreSQL twin: the schemas differ`);
  return rows.map((r) => r.name).filter((c) => inSqlite.has(c));
}

/** Moves every identity column's sequence past the largest key copied, as if the rows had been inserted. */
async function advanceIdentities(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    "select table_name, column_name from information_schema.columns where table_schema = current_schema() and is_identity = 'YES'",
  );
  for (const { table_name: table, column_name: column } of rows) {
    await client.query(`select setval(pg_get_serial_sequence($1, $2), coalesce(max(${ident(column)}), 0) + 1, false) from ${ident(table)}`, [ident(table), column]);
  }
}

/** A Postgres identifier, quoted. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the given URL';
  }
}
