import { sql } from 'kysely';
import { CompiledQueries } from './compiled-queries.ts';
import type { Db } from './schema.ts';

/** A bucket's window as the database holds it after counting a request (or as it stands). */
export interface StoredWindow {
  startedMs: number;
  used: number;
}

/**
 * Rate-limit windows, one row per bucket, shared by every API process on the database. Counting
 * is one statement, so concurrent requests (in this process or another) never lose an update:
 * SQLite serialises writers, and Postgres's upsert locks the bucket's row until it commits.
 */
export class RateLimitsStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /**
   * Counts one request in the bucket's window and returns the window after it: a bucket without a
   * row, or whose window is `windowMs` old or older at `nowMs`, opens a new one counting this
   * request. The statement is compiled once: building it with Kysely on every request cost as much
   * as running it.
   */
  async count(bucket: string, nowMs: number, windowMs: number): Promise<StoredWindow> {
    const [row] = await this.#queries.rows(
      `count:${windowMs}`,
      (p) => {
        // Every SET expression reads the row as it was, so both CASEs test the old window. `excluded`
        // carries nowMs, which keeps the arithmetic on columns (a bare parameter has no type on Postgres).
        const closed = sql<boolean>`rate_limits.window_started_ms <= excluded.window_started_ms - ${sql.lit(windowMs)}`;
        return this.db
          .insertInto('rate_limits')
          .values({ bucket: p('bucket'), window_started_ms: p('nowMs'), used: sql.lit(1) })
          .onConflict((oc) =>
            oc.column('bucket').doUpdateSet({
              window_started_ms: sql`case when ${closed} then excluded.window_started_ms else rate_limits.window_started_ms end`,
              used: sql`case when ${closed} then 1 else rate_limits.used + 1 end`,
            }),
          )
          .returning(['window_started_ms', 'used']);
      },
      { bucket, nowMs },
    );
    return { startedMs: Number(row!.window_started_ms), used: Number(row!.used) };
  }

  /** The bucket's window as stored (possibly closed), or undefined when it has none. */
  async find(bucket: string): Promise<StoredWindow | undefined> {
    const row = await this.db.selectFrom('rate_limits').select(['window_started_ms', 'used']).where('bucket', '=', bucket).executeTakeFirst();
    return row && { startedMs: Number(row.window_started_ms), used: Number(row.used) };
  }

  /** Deletes windows that closed by `nowMs` (a later request in such a bucket opens a new one anyway). */
  async sweep(nowMs: number, windowMs: number): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('window_started_ms', '<=', nowMs - windowMs).execute();
  }

  /** Deletes every window (the admin reset). */
  async clear(): Promise<void> {
    await this.db.deleteFrom('rate_limits').execute();
  }
}
