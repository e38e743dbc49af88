import { PostgresAdapter, SqliteAdapter, type ColumnDefinitionBuilder, type SelectQueryBuilder, type CreateTableBuilder, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { postgresDialect } from './postgres.ts';
import { sqliteDialect } from './sqlite.ts';

/**
 * How SQLite and PostgreSQL spell what the stores ask of them, and what each can do. Its contract:
 * the API's answers are byte-identical on both (JSON as SQLite's `json_object` writes it, instants
 * as `isoSeconds` renders them, text ordered by code point).
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** A JSON object as compact text, keys in the order given, escaped as SQLite's `json_object` escapes them. */
  jsonObject(fields: Record<string, JsonValue>): RawBuilder<string>;
  /** {@link jsonObject}, or JSON `null` when `isNull` holds (a left-joined row that is absent). */
  jsonObjectOrNull(isNull: Expression<unknown>, fields: Record<string, JsonValue>): RawBuilder<string | null>;
  /** The values as a JSON array's text (read back with JSON.parse; its spacing may differ by backend). */
  jsonArray(values: Expression<unknown>[]): RawBuilder<string>;
  /** JSON `true` or `false` from a 0/1 integer column, as a value for {@link jsonObject}. */
  jsonBoolean(flag: Expression<unknown>): JsonValue;
  /** Epoch seconds as `isoSeconds` renders them (`2026-11-21T08:18:00Z`). */
  isoInstant(column: string): RawBuilder<string>;
  /**
   * The values of a group joined by `separator`, in the order `orderBy` names. The rows must come
   * from a subquery already sorted that way: SQLite keeps that order, Postgres sorts in the aggregate.
   */
  orderedConcat(value: Expression<unknown>, separator: string, orderBy: RawBuilder<unknown>): RawBuilder<string | null>;
  /** Queue rows to claim, skipping those another session is claiming (Postgres); SQLite has one writer. */
  skipLocked<Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q;
  /** Rows read to lock them until the transaction ends (Postgres); SQLite's transactions take the write lock as they begin. */
  lockRows<Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q;
  /**
   * Lets the current transaction commit without waiting for the disk, for writes that are redone if
   * lost. A synchronous standby does not wait for it either, so a failover can lose it: never use it
   * for what a client is told was accepted.
   */
  relaxCommit(trx: Kysely<any>): Promise<void>;
  /** Has the database compress `column`'s large values with its fastest method, where it has a choice. */
  fastCompression(db: Kysely<any>, table: string, column: string): Promise<void>;
  /** Keeps `table` out of the write-ahead log where the database allows it (rows a crash may lose). */
  unlogged(db: Kysely<any>, table: string): Promise<void>;
  /**
   * Whether an ordered `union all` reads each arm only as far as the merged order needs (SQLite
   * runs the arms as co-routines); where not (Postgres), an arm stops early only under its own limit.
   */
  readonly mergesUnionArms: boolean;
  /** Whether one writer at a time holds the whole database (SQLite): a long write holds back every other. */
  readonly singleWriter: boolean;
  /** Column types for migrations. */
  readonly types: ColumnTypes;
  /** How export selection stores and walks its sort keys (see core/store/export-selection.ts). */
  readonly exportKeys: ExportKeys;
  /** Settings each connection needs before the API runs (SQLite's foreign keys; nothing on Postgres). */
  prepareConnection(db: Kysely<any>): Promise<void>;
  /** The database's own tables (on Postgres, those of the schema given, else of the current schema), sorted by name. */
  tableNames(db: Kysely<any>): Promise<string[]>;
  /** Whether the server is a hot standby, which takes reads only (Postgres's recovery); never on SQLite. */
  isReadOnlyStandby(db: Kysely<any>): Promise<boolean>;
  /** The schema the migration table lives in (Postgres: the schema given, else the connection's current one), or undefined. */
  migrationSchema(db: Kysely<any>): Promise<string | undefined>;
}

/** Export sort keys as `export_members` stores them: an integer or text, text ordered by code point. */
export interface ExportKeys {
  /** An integer key (epoch seconds, a count), as the backend orders it in the key columns. */
  integer(expr: Expression<unknown>): RawBuilder<number | string>;
  /** A text key, lower-cased, a null ordering before every text. */
  text(expr: Expression<unknown>): RawBuilder<number | string>;
  /** The collection statement made to walk the people's pk range (SQLite: `NOT INDEXED`). */
  walkPkRange(compiledSql: string, peopleFrom: string): string;
}

/** A column's type as `addColumn` takes it. */
type DataTypeExpression = Parameters<CreateTableBuilder<string, never>['addColumn']>[1];

/** Column types whose spelling differs. */
export interface ColumnTypes {
  /** Whole numbers, epoch seconds included: SQLite's `integer` is 64-bit, Postgres needs `bigint`. */
  int: DataTypeExpression;
  /** Text compared and ordered by code point (SQLite's binary collation; `COLLATE "C"` on Postgres). */
  text: DataTypeExpression;
  /** A value that is an integer or text, kept as given on SQLite (`blob` affinity); text on Postgres. */
  scalar: DataTypeExpression;
  /** A generated integer primary key: SQLite's rowid alias (optionally never reusing keys), a Postgres identity. */
  rowKey(column: ColumnDefinitionBuilder, options?: { neverReuse?: boolean }): ColumnDefinitionBuilder;
  /** Table options after the column list (SQLite's `without rowid`; nothing on Postgres). */
  withoutRowid: RawBuilder<unknown> | null;
}

/**
 * Whether a client's text can name a stored row at all: no stored id holds a NUL, and PostgreSQL
 * cannot bind one in text, so such an id matches nothing on either backend.
 */
export function canNameStoredText(text: string): boolean {
  return !text.includes('\u0000');
}

/** A value of {@link SqlDialect.jsonObject}: a scalar expression, or text that is already JSON. */
export type JsonValue = { kind: 'scalar'; expr: Expression<unknown> } | { kind: 'json'; expr: Expression<unknown> };

/** A scalar value of a JSON object: text, a number or null. */
export function jsonScalar(expr: Expression<unknown>): JsonValue {
  return { kind: 'scalar', expr };
}

/** A value that is already JSON text written by the dialect (a nested object, a boolean), embedded as it is. */
export function jsonText(expr: Expression<unknown>): JsonValue {
  return { kind: 'json', expr };
}

/** The dialect of a Kysely instance (or transaction), from the class of its adapter. */
export function dialectOf(db: Kysely<any>): SqlDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return sqliteDialect;
  if (adapter instanceof PostgresAdapter) return postgresDialect;
  // A subclass from another copy of Kysely (a dialect package bundling its own) still has the name.
  for (let proto = Object.getPrototypeOf(adapter); proto; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name === 'SqliteAdapter') return sqliteDialect;
    if (proto.constructor?.name === 'PostgresAdapter') return postgresDialect;
  }
  throw new Error(`unsupported database: the API runs on SQLite or PostgreSQL, not through ${adapter.constructor?.name ?? 'this adapter'}`);
}

export { postgresDialect, sqliteDialect };
