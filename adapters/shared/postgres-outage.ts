import { DatabaseUnavailable } from '../../core/store/database-unavailable.ts';

/**
 * Errors that mean the server or the connection went away rather than that a statement failed:
 * the server shutting down or ending the backend (57P01–57P03), connection exceptions (class 08,
 * PgBouncer's 08P01 included: it cannot reach the server, or lost it mid-statement), a server
 * that takes no writes now (25006: a pooler still pointing at a standby during a failover), and
 * `pg`'s and the socket's own words for a connection that closed or never opened.
 */
const SERVER_CODES = /^(57P0[123]|08[0-9A-Z]{3}|25006)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const PG_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly|Client was closed and is not queryable/;

export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof DatabaseUnavailable) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SERVER_CODES.test(code) || SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && PG_MESSAGES.test(message);
}

/**
 * One process's view of the database's outages: a line when a request or a step first meets one,
 * a line when statements go through again, and nothing for the requests in between. Failures less
 * than a second apart are one outage, so connections ended one by one do not make many.
 */
export class OutageLog {
  #since: number | undefined;
  #lastFailure = 0;

  /** What the lines call the server: a read database is told apart from the database. */
  readonly name: string;

  constructor(
    private readonly log: (line: string) => void = (line) => console.error(line),
    /** The read database (a hot standby): it cancels a read that conflicts with what it replays (40001), to be tried again. */
    private readonly readDatabase = false,
  ) {
    this.name = readDatabase ? 'PostgreSQL read database' : 'PostgreSQL';
  }

  /** Notes `error` if it is a lost connection; what to throw in its place. */
  failed(error: unknown): unknown {
    // Only reads reach a standby, so a 40001 there is a recovery conflict: one read to retry, no outage to log.
    if (this.readDatabase && (error as { code?: unknown } | null)?.code === '40001') return new DatabaseUnavailable(error);
    if (!isConnectionLoss(error)) return error;
    this.#lastFailure = Date.now();
    if (this.#since === undefined) {
      this.#since = this.#lastFailure;
      const reason = error instanceof Error ? error.message : String(error);
      this.log(`[visitor-intelligence] ${this.name} unavailable (${reason}); requests get 500 with Retry-After until it is back`);
    }
    return error instanceof DatabaseUnavailable ? error : new DatabaseUnavailable(error);
  }

  /** Notes that a statement went through. */
  succeeded(): void {
    if (this.#since === undefined) return;
    const now = Date.now();
    if (now - this.#lastFailure < 1000) return;
    const seconds = (this.#lastFailure - this.#since) / 1000;
    this.#since = undefined;
    this.log(`[visitor-intelligence] ${this.name} available again (out for ${seconds.toFixed(1)} s)`);
  }
}
