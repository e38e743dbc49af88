import { sql, type RawBuilder } from 'kysely';
import type { JsonValue, SqlDialect } from './index.ts';

/** SQLite's `json_object(k1, v1, …)`: values that are JSON (subtype set) are embedded, others quoted. */
function jsonObject(fields: Record<string, JsonValue>): RawBuilder<string> {
  const args = Object.entries(fields).flatMap(([key, value]) => [sql.lit(key), value.expr]);
  return sql<string>`json_object(${sql.join(args)})`;
}

/** The SQLite spellings: what the API ran on before the seam, unchanged. */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  jsonObject,
  jsonObjectOrNull: (isNull, fields) => sql<string | null>`iif(${isNull}, null, ${jsonObject(fields)})`,
  jsonArray: (values) => sql<string>`json_array(${sql.join(values)})`,
  jsonBoolean: (flag) => ({ kind: 'json', expr: sql`json(iif(${flag} = 1, 'true', 'false'))` }),
  // `datetime` with its space made a `T` is cheaper than the equivalent `strftime` format.
  isoInstant: (column) => sql<string>`(replace(datetime(${sql.ref(column)}, 'unixepoch'), ' ', 'T') || 'Z')`,
  // group_concat takes rows in the order the sorted subquery yields them.
  orderedConcat: (value, separator) => sql<string | null>`group_concat(${value}, ${sql.lit(separator)})`,
  exportKeys: {
    integer: (expr) => sql<number>`${expr}`,
    // A null becomes the integer 0, which SQLite orders before every text value (blob affinity keeps it an integer).
    text: (expr) => sql<string | number>`coalesce(lower(${expr}), 0)`,
    // Left to choose, SQLite may read the account's index on account_id (or company_pk) and test
    // each row's pk, making every step as slow as one big statement; NOT INDEXED still lets it
    // seek the range by rowid.
    walkPkRange(compiledSql, peopleFrom) {
      const walk = compiledSql.replace(peopleFrom, `${peopleFrom} not indexed`);
      if (walk === compiledSql) throw new Error(`export collection: ${peopleFrom} not found in ${compiledSql}`);
      return walk;
    },
  },
  relaxCommit: async () => undefined,
  fastCompression: async () => undefined,
  unlogged: async () => undefined,
  mergesUnionArms: true,
  singleWriter: true,
  skipLocked: (query) => query,
  lockRows: (query) => query,
  types: {
    int: 'integer',
    text: 'text',
    scalar: sql`blob`,
    rowKey: (column, options) => (options?.neverReuse ? column.primaryKey().autoIncrement() : column.primaryKey()),
    withoutRowid: sql`without rowid`,
  },
  async prepareConnection(db) {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  },
  async tableNames(db) {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and substr(name, 1, 7) <> 'sqlite_' order by name`.execute(db);
    return rows.map((r) => r.name);
  },
  isReadOnlyStandby: async () => false,
  migrationSchema: async () => undefined,
};

