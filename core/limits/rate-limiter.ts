import type { Clock } from '../time/clock.ts';
import type { RateLimitsStore, StoredWindow } from '../store/rate-limits-store.ts';

/** The outcome of counting one request against a bucket. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  retryAfterSeconds: number;
}

const HOUR_MS = 3_600_000;
/** How often (in the clock's time) a process deletes closed windows: often enough to keep the table small, rarely enough to cost nothing per request. */
const SWEEP_EVERY_MS = HOUR_MS;

/**
 * Fixed one-hour windows per bucket: a bucket's window opens with its first request and allows
 * `limit` requests until it closes an hour later. Windows live in the database, so a restart keeps
 * them and every process on the database shares one budget per bucket.
 *
 * Each request is counted by one statement that adds it to its bucket's window and returns the
 * count: the database orders concurrent statements, so each count is handed out once across
 * processes, and a process holds nothing a crash could lose.
 */
export class HourlyRateLimiter {
  #nextSweepMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly store: RateLimitsStore,
  ) {
    this.#nextSweepMs = clock.now() + SWEEP_EVERY_MS;
  }

  /**
   * Counts a request against the bucket and says whether it fits and how much is left. A refused
   * request is counted too (one statement decides and counts, so no race grants more than `limit`);
   * past the limit the count only says the budget is spent.
   */
  async take(bucket: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    if (now >= this.#nextSweepMs) {
      this.#nextSweepMs = now + SWEEP_EVERY_MS;
      await this.store.sweep(now, HOUR_MS);
    }
    const window = await this.store.count(bucket, now, HOUR_MS);
    return describe(window, limit, now, window.used <= limit);
  }

  /** What the bucket stands at, without counting a request (an injected 429 reports it). */
  async peek(bucket: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const window = await this.store.find(bucket);
    const open = window && now - window.startedMs < HOUR_MS ? window : { startedMs: now, used: 0 };
    return describe(open, limit, now, open.used < limit);
  }

  /** Forgets every window (an admin reset). */
  async clear(): Promise<void> {
    await this.store.clear();
  }
}

function describe(window: StoredWindow, limit: number, now: number, allowed: boolean): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - window.used),
    retryAfterSeconds: Math.max(1, Math.ceil((window.startedMs + HOUR_MS - now) / 1000)),
  };
}
