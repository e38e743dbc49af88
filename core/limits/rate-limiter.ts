import type { Clock } from '../time/clock.ts';
import { nextTurnForRequests } from '../time/next-turn.ts';
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

/** A request waiting for its bucket to be counted. */
interface Waiting {
  limit: number;
  settle: (decision: RateDecision) => void;
  fail: (error: unknown) => void;
}

/**
 * Fixed one-hour windows per bucket: a bucket's window opens with its first request and
 * allows `limit` requests until it closes an hour later. Windows live in the database, so a
 * restart keeps them and every process on the database shares one budget per bucket.
 *
 * Requests are counted once per turn of the event loop: those that arrive together (under load,
 * a turn reads several) wait for the turn's end, then each bucket is counted by one statement for
 * all of them. Counting was a write (a commit) per request, the most costly statement of a page
 * on SQLite and a round trip on PostgreSQL. Waiting for the turn's end costs a request alone
 * ~5% (a page through `api.fetch`, in one A/B run on 2026-11-26); counting each request at once
 * instead, and only those arriving during a count together, cost 4–31% of the requests/s over HTTP
 * (one pair of `--suites http` runs, 10 connections, each adapter): on SQLite a count never
 * overlaps the next request, so every request committed alone.
 */
export class HourlyRateLimiter {
  #nextSweepMs: number;
  /** Requests of this turn, by bucket, in arrival order. */
  #pending = new Map<string, Waiting[]>();

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
  take(bucket: string, limit: number): Promise<RateDecision> {
    return new Promise((settle, fail) => {
      if (this.#pending.size === 0) nextTurnForRequests(() => void this.#flush());
      const queue = this.#pending.get(bucket);
      if (queue) queue.push({ limit, settle, fail });
      else this.#pending.set(bucket, [{ limit, settle, fail }]);
    });
  }

  /** Counts the turn's requests: one statement per bucket, each request its place in the count. */
  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    const now = this.clock.now();
    try {
      if (now >= this.#nextSweepMs) {
        this.#nextSweepMs = now + SWEEP_EVERY_MS;
        await this.store.sweep(now, HOUR_MS);
      }
    } catch (error) {
      for (const queue of batch.values()) for (const waiting of queue) waiting.fail(error);
      return;
    }
    await Promise.all(
      [...batch].map(async ([bucket, queue]) => {
        try {
          const window = await this.store.count(bucket, now, HOUR_MS, queue.length);
          // The requests counted together take the places of the count in arrival order, as if
          // each had been counted alone.
          const first = window.used - queue.length + 1;
          queue.forEach(({ limit, settle }, i) => {
            const used = first + i;
            settle(describe({ startedMs: window.startedMs, used }, limit, now, used <= limit));
          });
        } catch (error) {
          for (const waiting of queue) waiting.fail(error);
        }
      }),
    );
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
