import type { Clock } from '../time/clock.ts';

/** The outcome of counting one request against a bucket. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  retryAfterSeconds: number;
}

interface Window {
  startedMs: number;
  used: number;
}

const HOUR_MS = 3_600_000;

/**
 * Fixed one-hour windows per bucket: a bucket's window opens with its first request and
 * allows `limit` requests until it closes an hour later. Buckets live in this process.
 */
export class HourlyRateLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(private readonly clock: Clock) {}

  /** Counts a request against the bucket if it fits, and says how much is left. */
  take(bucket: string, limit: number): RateDecision {
    const now = this.clock.now();
    const window = this.#current(bucket, now);
    const allowed = window.used < limit;
    if (allowed) window.used++;
    return this.#describe(window, limit, now, allowed);
  }

  /** What the bucket stands at, without counting a request (an injected 429 reports it). */
  peek(bucket: string, limit: number): RateDecision {
    const now = this.clock.now();
    const window = this.#windows.get(bucket);
    const open = window && now - window.startedMs < HOUR_MS ? window : { startedMs: now, used: 0 };
    return this.#describe(open, limit, now, open.used < limit);
  }

  /** Forgets every window (an admin reset). */
  clear(): void {
    this.#windows.clear();
  }

  #current(bucket: string, now: number): Window {
    let window = this.#windows.get(bucket);
    if (!window || now - window.startedMs >= HOUR_MS) {
      window = { startedMs: now, used: 0 };
      this.#windows.set(bucket, window);
      if (this.#windows.size > 10_000) this.#sweep(now);
    }
    return window;
  }

  #describe(window: Window, limit: number, now: number, allowed: boolean): RateDecision {
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - window.used),
      retryAfterSeconds: Math.max(1, Math.ceil((window.startedMs + HOUR_MS - now) / 1000)),
    };
  }

  /** Forgets windows that have closed, so the map does not grow without bound. */
  #sweep(now: number): void {
    for (const [bucket, window] of this.#windows) if (now - window.startedMs >= HOUR_MS) this.#windows.delete(bucket);
  }
}
