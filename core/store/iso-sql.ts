import type { RawBuilder } from 'kysely';
import { sqliteDialect, type SqlDialect } from './dialect/index.ts';

/**
 * Epoch seconds as `isoSeconds` renders them (`2026-11-21T08:18:00Z`), computed by the database
 * (see each dialect's `isoInstant`). Without a dialect, SQLite's spelling.
 */
export function isoSql(column: string, dialect: SqlDialect = sqliteDialect): RawBuilder<string> {
  return dialect.isoInstant(column);
}
