import { PostgresAdapter, SqliteAdapter, type ColumnDefinitionBuilder, type SelectQueryBuilder, type CreateTableBuilder, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { postgresDialect } from './postgres.ts';
import { sqliteBlobBodiesDialect, sqliteDialect } from './sqlite.ts';

/**
 * What differs between the backends, and nothing else: every store, handler and migration runs
 * the same code on SQLite and on PostgreSQL, asking this seam for the few pieces of SQL (and the
 * column types) whose spelling or semantics differ. Its contract is that the API's answers are
 * byte-identical on both: JSON text as SQLite's `json_object` writes it, instants as
 * `isoSeconds` renders them, text compared and ordered by code point.
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * A JSON object as compact text, keys in the order given, escaped as SQLite's `json_object`
   * escapes them. A value is a scalar (text, integer or null) unless wrapped by {@link jsonText}.
   */
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
   * from a subquery already sorted that way: SQLite takes them in that order (sorting again would
   * double the cost), Postgres sorts inside the aggregate.
   */
  orderedConcat(value: Expression<unknown>, separator: string, orderBy: RawBuilder<unknown>): RawBuilder<string | null>;
  /**
   * A selection of queue rows to claim, skipping rows another session is claiming right now
   * (Postgres: `for update skip locked`), so concurrent claimers take different rows instead of
   * waiting for each other and then finding theirs taken. SQLite has one writer at a time: as is.
   * The claiming UPDATE must still re-check its conditions: this only spreads the work.
   */
  skipLocked<Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q;
  /**
   * Lets the current transaction commit without waiting for its write to reach the disk, for
   * writes a crash may lose because they are redone (export progress: a chunk and the position
   * after it commit together, and a lost pair is written again). Postgres: `synchronous_commit`
   * off for this transaction; SQLite in WAL mode with NORMAL sync never waits at commit.
   */
  relaxCommit(trx: Kysely<any>): Promise<void>;
  /**
   * Stored JSON text as a page body reads it fastest: SQLite hands it over as a blob, whose bytes
   * go into the response as they are (a text would be decoded from UTF-8 into a JS string and
   * encoded back); Postgres's driver reads text faster than bytea.
   */
  bodyJson(text: Expression<string>): RawBuilder<string | Uint8Array>;
  /**
   * Has the database compress `column`'s large values with its fastest method, where it has a
   * choice: Postgres built with LZ4 (most are) compresses with pglz by default, ~4× slower. SQLite
   * never compresses.
   */
  fastCompression(db: Kysely<any>, table: string, column: string): Promise<void>;
  /**
   * Keeps `table` out of the write-ahead log where the database allows it, for rows whose loss in
   * a crash of the database server is acceptable and whose every write would otherwise wait for a
   * flush. Postgres: an unlogged table (emptied by crash recovery, kept by a clean shutdown, not
   * copied to replicas). SQLite in WAL mode with NORMAL sync never waits at commit: as is.
   */
  unlogged(db: Kysely<any>, table: string): Promise<void>;
  /**
   * Whether an index range can start at a row value, `(a, b) < (x, y)`: Postgres seeks the index
   * to it; SQLite takes the range by `a` alone and tests the pair on every row it walks.
   */
  readonly seeksRowValues: boolean;
  /**
   * Whether a page merged from a `union all` of index-ordered arms needs each arm ordered and
   * limited itself: Postgres plans a union's arms on their own, and over a few hundred rows a site
   * reads each arm whole and sorts it (a bitmap scan); an arm with its own limit is an index scan
   * that stops early, merged in order (Merge Append). SQLite already runs the arms as co-routines
   * the merge reads only as far as it needs.
   */
  readonly limitsUnionArms: boolean;
  /**
   * Whether a page of stored JSON bodies is cheaper joined by the database into one text than read
   * as rows and joined in JavaScript. SQLite: one string crosses into JS instead of a hundred, half
   * the page's cost. Postgres: `string_agg` over a journey page of 100 took ~0.5 ms more than
   * reading its rows (0.70 against 0.19 ms, 2026-11-28), which the driver turns into strings anyway.
   */
  readonly joinsPageBodies: boolean;
  /**
   * Whether people keep their account-view JSON whole too, beside its pieces, filed in page order
   * (`people_whole`, migration 0017; `people.json_whole` before it). SQLite: a page of 101 stored
   * texts read in a sixth less time than joining four pieces each (101 against 121 µs,
   * 2026-11-29), and filed in page order a page of them in a quarter less again (56 → 42 µs).
   * Postgres: the ~0.9 KB more took a person's row past the 2 KB TOAST threshold, and the same
   * page statement took 834 against 482 µs, so the table stays empty there.
   */
  readonly storesWholePeople: boolean;
  /**
   * Whether a people page reads its rows' JSON alone and the positions a cursor needs from a
   * second arm of the same compound statement, after them. SQLite runs a compound's arms in order,
   * and hands a row of one column over for a fraction of a row of three: 101 people (JSON, id,
   * last_seen) read in 97 µs, the same page as 100 JSON texts and two positions in 68 µs
   * (2026-11-29). Postgres does not promise the arms' order, and its driver reads every column
   * as text anyway: it reads the page's rows with their positions.
   */
  readonly readsPositionsApart: boolean;
  /** Column types for migrations. */
  readonly types: ColumnTypes;
  /** How export selection stores and walks its sort keys (see core/store/export-selection.ts). */
  readonly exportKeys: ExportKeys;
  /** Settings each connection needs before the API runs (SQLite's foreign keys; nothing on Postgres). */
  prepareConnection(db: Kysely<any>): Promise<void>;
  /** The database's own tables (on Postgres, those of the current schema; internal tables excluded), sorted by name. */
  tableNames(db: Kysely<any>): Promise<string[]>;
  /** The schema the migration table lives in (Postgres: the connection's current schema), or undefined. */
  migrationSchema(db: Kysely<any>): Promise<string | undefined>;
}

/**
 * Export sort keys as `export_members` stores them. The writer compares keys in JavaScript too
 * (core/exports/run-merge.ts), so a key is an integer or text, and text orders by code point.
 */
export interface ExportKeys {
  /** An integer key (epoch seconds, a count), as the backend orders it in the key columns. */
  integer(expr: Expression<unknown>): RawBuilder<number | string>;
  /** A text key, lower-cased, a null ordering before every text. */
  text(expr: Expression<unknown>): RawBuilder<number | string>;
  /**
   * Whether the database writes a job's whole file in one statement (Postgres:
   * core/store/export-whole-file.ts), or the job collects its members in steps into small sorted
   * runs, which the writer merges a step at a time (SQLite, where every statement holds the serving
   * thread; members inserted at random places of one large index rewrote a page each into the WAL).
   */
  wholeFile: boolean;
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
 * Whether a client's text can name a stored row at all. No stored id holds a NUL (loading refuses
 * control characters), and PostgreSQL cannot even bind one in text: such an id matches nothing,
 * on either backend, without asking the database.
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

/**
 * The dialect of a Kysely instance (or transaction), from its adapter: the API needs no option
 * to know its backend, and stores find it through the instance they already receive.
 */
export function dialectOf(db: Kysely<any>): SqlDialect {
  const adapter = db.getExecutor().adapter;
  // A SQLite driver that reads blobs fast says so on its adapter (adapters/shared/sqlite-shim.ts).
  const sqlite = (adapter as { readsBlobsFast?: boolean }).readsBlobsFast ? sqliteBlobBodiesDialect : sqliteDialect;
  if (adapter instanceof SqliteAdapter) return sqlite;
  if (adapter instanceof PostgresAdapter) return postgresDialect;
  // A subclass from another copy of Kysely (a dialect package bundling its own) still has the name.
  for (let proto = Object.getPrototypeOf(adapter); proto; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name === 'SqliteAdapter') return sqlite;
    if (proto.constructor?.name === 'PostgresAdapter') return postgresDialect;
  }
  throw new Error(`unsupported database: the API runs on SQLite or PostgreSQL, not through ${adapter.constructor?.name ?? 'this adapter'}`);
}

export { postgresDialect, sqliteDialect };
