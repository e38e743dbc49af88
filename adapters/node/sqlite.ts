import BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../../core/index.ts';
import { openSqlite } from '../shared/sqlite-shim.ts';
import { startCheckpointer } from './checkpointer.ts';

/** Opens (creating if needed) a SQLite file with better-sqlite3 in WAL mode, as a Kysely instance; a worker thread checkpoints its WAL. */
export function openDatabase(path: string): Kysely<Database> {
  return openSqlite(
    path,
    (file) => {
      const db = new BetterSqlite3(file);
      return { prepare: (sql) => db.prepare(sql), exec: (sql) => void db.exec(sql), close: () => db.close(), returnsRows: (s) => s.reader };
    },
    startCheckpointer,
  );
}
