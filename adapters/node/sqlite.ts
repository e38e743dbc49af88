import BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../../core/index.ts';
import { ensureParentDir } from '../shared/ensure-dir.ts';
import { FILE_PRAGMAS, kyselyOver } from '../shared/sqlite-shim.ts';

/** Opens (creating if needed) a SQLite file with better-sqlite3 in WAL mode, as a Kysely instance. */
export function openDatabase(path: string): Kysely<Database> {
  ensureParentDir(path);
  const sqlite = new BetterSqlite3(path);
  // WAL with NORMAL sync cannot corrupt the file on a crash; it may only lose the last commits.
  if (path !== ':memory:') for (const pragma of FILE_PRAGMAS) sqlite.exec(pragma);
  return kyselyOver({ prepare: (sql) => sqlite.prepare(sql), close: () => sqlite.close(), returnsRows: (s) => s.reader });
}
