import { rmSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';

/** How often a waiting process tries the lock again (milliseconds). */
const POLL_MS = 100;

/**
 * A lock between the processes of one machine, held as a write transaction on a small SQLite
 * file beside the database: SQLite's own file locking, so the operating system lets go of it when
 * its holder ends, however it ends (a seeder killed with SIGKILL never leaves it held). It works
 * wherever the runtime's SQLite does, Bun's and Deno's included.
 */
export class FileLock {
  private constructor(
    private readonly db: Kysely<any>,
    readonly path: string,
  ) {}

  /**
   * Takes the lock, waiting while another process holds it (`onWait` is called once if it must),
   * or returns null once `isDone` says what the lock guards is done (checked before each try, and
   * on a failure: the holder removes the lock file when done, which can fail a try under way).
   * `open` is the runtime's SQLite opener; any other failure is thrown.
   */
  static async take(path: string, open: (path: string) => Kysely<any>, onWait: () => void, isDone: () => boolean): Promise<FileLock | null> {
    let waited = false;
    for (;;) {
      if (isDone()) return null;
      let db: Kysely<any> | undefined;
      try {
        db = open(path);
        // Polled below, so the event loop stays free (a busy wait would block the thread).
        await sql`pragma busy_timeout = 0`.execute(db);
        await sql`begin exclusive`.execute(db);
        return new FileLock(db, path);
      } catch (error) {
        await db?.destroy().catch(() => undefined);
        if (isDone()) return null;
        if (!isLocked(error)) throw error;
        if (!waited) onWait();
        waited = true;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  }

  /**
   * Lets the lock go. With `remove`, the lock file goes too: only once what it guarded is done
   * for good (every later taker checks that first), since a waiter still holds the old file open.
   */
  async release({ remove = false } = {}): Promise<void> {
    await sql`rollback`.execute(this.db).catch(() => undefined);
    await this.db.destroy();
    if (remove) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(this.path + suffix, { force: true });
  }
}

/** SQLite's "database is locked" (SQLITE_BUSY), as each runtime's driver reports it. */
function isLocked(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'SQLITE_BUSY' || /database is locked|SQLITE_BUSY/i.test(String(message ?? ''));
}
