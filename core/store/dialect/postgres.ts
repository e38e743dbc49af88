import { sql, type Expression, type RawBuilder } from 'kysely';
import { schemaOf, tablesSchemaSql } from '../in-schema.ts';
import type { JsonValue, SqlDialect } from './index.ts';

/** A SQL string literal of a constant of the code (keys, separators), quotes doubled. */
function literal(text: string): RawBuilder<string> {
  return sql.raw(`'${text.replace(/'/g, "''")}'`);
}

/** A value as JSON text, `null` for SQL null: `to_json` escapes text as SQLite's json_object does. */
function jsonPiece(value: JsonValue): RawBuilder<string> {
  return value.kind === 'json' ? sql<string>`coalesce((${value.expr})::text, 'null')` : sql<string>`coalesce(to_json(${value.expr})::text, 'null')`;
}

/**
 * The object concatenated from its pieces with `||`: `json_build_object` writes `"k" : v` with
 * spaces, `jsonb` reorders keys, and every function (`concat`, `json_build_object`) takes at most
 * 100 arguments, fewer than a person's fields and values. An operator chain has no such limit.
 */
function jsonObject(fields: Record<string, JsonValue>): RawBuilder<string> {
  const pieces = Object.entries(fields).map(([key, value], i) => sql`${literal(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`)} || ${jsonPiece(value)}`);
  if (pieces.length === 0) return sql<string>`'{}'`;
  return sql<string>`(${sql.join(pieces, sql` || `)} || '}')`;
}

/** The PostgreSQL spellings (15 and later; PGlite runs the same). */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  jsonObject,
  jsonObjectOrNull: (isNull, fields) => sql<string | null>`(case when ${isNull} then null else ${jsonObject(fields)} end)`,
  // At most 100 arguments; callers pass a few dozen.
  jsonArray: (values) => sql<string>`json_build_array(${sql.join(values)})::text`,
  jsonBoolean: (flag: Expression<unknown>) => ({ kind: 'json', expr: sql`(case when ${flag} = 1 then 'true' else 'false' end)` }),
  isoInstant: (column) => sql<string>`to_char(to_timestamp(${sql.ref(column)}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
  orderedConcat: (value, separator, orderBy) => sql<string | null>`string_agg(${value}, ${literal(separator)} order by ${orderBy})`,
  exportKeys: {
    // The key columns are text: integers as 20 digits order by value; both kinds are never mixed in one job's column.
    integer: (expr) => sql<string>`lpad((${expr})::text, 20, '0')`,
    // '0' for null orders before every '1'-prefixed text, as SQLite's integer 0 before text.
    text: (expr) => sql<string>`coalesce('1' || lower(${expr}), '0')`,
    walkPkRange: (compiledSql) => compiledSql,
  },
  async relaxCommit(trx) {
    await sql`set local synchronous_commit = off`.execute(trx);
  },
  async fastCompression(db, table, column) {
    // The methods this server was built with; lz4 is optional at build time (PGlite lacks it).
    const { rows } = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
    if (rows[0]?.lz4) await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression lz4`.execute(db);
  },
  mergesUnionArms: false,
  singleWriter: false,
  async unlogged(db, table) {
    await sql`alter table ${sql.table(table)} set unlogged`.execute(db);
  },
  skipLocked: (query) => query.forUpdate().skipLocked() as typeof query,
  lockRows: (query) => query.forUpdate() as typeof query,
  types: {
    // Epoch seconds pass 2^31 in 2038; pks and counts grow past it too. The pool parses int8 as a number.
    int: 'bigint',
    // Ids break ties in every list: ordered by code point as SQLite's binary collation orders them.
    text: sql`text collate "C"`,
    scalar: sql`text collate "C"`,
    rowKey: (column) => column.primaryKey().generatedByDefaultAsIdentity(),
    withoutRowid: null,
  },
  prepareConnection: async () => undefined,
  async tableNames(db) {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${tablesSchemaSql(db)} and table_type = 'BASE TABLE' order by table_name collate "C"`.execute(db);
    return rows.map((r) => r.name);
  },
  async isReadOnlyStandby(db) {
    const { rows } = await sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`.execute(db);
    return rows[0]?.standby === true;
  },
  async migrationSchema(db) {
    const given = schemaOf(db);
    if (given !== undefined) return given;
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  },
};
