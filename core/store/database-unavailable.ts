/**
 * The database could not be reached or dropped the connection: an outage, not a fault of the
 * request or of the code. Adapters that can tell (the PostgreSQL pool) throw it; the core answers
 * 500 with `Retry-After` and logs nothing per request, and background work waits and carries on.
 */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailable';
  }
}

/** How long a client is asked to wait, and background work waits, before trying again. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * Runs `work`, and runs it again a second later for as long as the database is unavailable,
 * unless `stopped()`; other errors are thrown as they are.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, stopped: () => boolean): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof DatabaseUnavailable) || stopped()) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_SECONDS * 1000));
    }
  }
}
