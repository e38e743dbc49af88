import { sql } from 'kysely';
import { DatabaseUnavailable } from './database-unavailable.ts';
import { appliedMigrations } from './migrator.ts';
import type { Db } from './schema.ts';

/**
 * Where a read database (a PostgreSQL streaming standby) stands against the database it copies,
 * told by write-ahead-log positions: every transaction the primary committed before its position
 * was taken is visible on a standby that has replayed up to that position. Nothing here writes.
 */
export class ReadReplica {
  constructor(
    private readonly primary: Db,
    private readonly replica: Db,
  ) {}

  /**
   * Waits, up to `ms`, until the replica has replayed every write the primary committed before
   * the call; whether it has. An outage of either side is a `false`, not an error: the writes
   * being waited for are committed whatever the replica shows.
   */
  async catchUp(ms: number): Promise<boolean> {
    try {
      const position = await this.#primaryPosition();
      return await within(ms, () => this.#replayed(position));
    } catch (error) {
      if (error instanceof DatabaseUnavailable) return false;
      throw error;
    }
  }

  /**
   * Waits, up to `ms`, until the replica holds every migration the primary has applied, so no
   * read meets a table or column it has not replayed yet; a ReadDatabaseNotReady after that.
   */
  async awaitSchema(ms: number): Promise<void> {
    const wanted = await appliedMigrations(this.primary);
    let reason = '';
    const ready = await within(ms, async () => {
      try {
        const have = new Set(await appliedMigrations(this.replica));
        const missing = wanted.filter((name) => !have.has(name));
        reason = missing.length === 0 ? '' : `it lacks migration ${missing[0]}`;
        return missing.length === 0;
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        return false;
      }
    });
    if (!ready) throw new ReadDatabaseNotReady(`the read database does not hold the database's schema after ${ms / 1000} s (${reason}): is it a streaming standby of the database?`);
  }

  /** The primary's write-ahead-log position now, as text (`0/3016098`). */
  async #primaryPosition(): Promise<string> {
    const { rows } = await sql<{ position: string }>`select pg_current_wal_lsn()::text as position`.execute(this.primary);
    return rows[0]!.position;
  }

  /** Whether the replica has replayed up to `position`; a server in no recovery (not a standby) has nothing left to replay. */
  async #replayed(position: string): Promise<boolean> {
    const { rows } = await sql<{ replayed: boolean }>`select coalesce(pg_last_wal_replay_lsn() >= ${position}::pg_lsn, not pg_is_in_recovery()) as replayed`.execute(this.replica);
    return rows[0]!.replayed === true;
  }
}

/** The read database could not be used at start: it is unreachable or lacks the schema within the bound. */
export class ReadDatabaseNotReady extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReadDatabaseNotReady';
  }
}

/** Asks `done` until it holds (true) or `ms` have passed (false): often at first, then less often. */
async function within(ms: number, done: () => Promise<boolean>): Promise<boolean> {
  let expired = false;
  const timer = setTimeout(() => (expired = true), ms);
  try {
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      if (await done()) return true;
      if (expired) return false;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  } finally {
    clearTimeout(timer);
  }
}
