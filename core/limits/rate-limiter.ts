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

/** Places of a bucket's open window this process counted ahead and has not handed out yet: `next` to `last`. */
interface Held {
  startedMs: number;
  next: number;
  last: number;
}

/** What this process knows of a bucket since it last counted in it. */
interface Known {
  startedMs: number;
  /** The window's count after that statement. */
  used: number;
  /** Places handed out of those held since then: the demand a next count reserves for. */
  taken: number;
}

/** The most places a count reserves ahead: what a killed process can leave unused in a window. */
const MOST_AHEAD = 32;
/** ...and at most this share of the limit (none under 100 a window), so little of a budget can be held. */
const AHEAD_SHARE = 0.01;

/**
 * Fixed one-hour windows per bucket: a bucket's window opens with its first request and
 * allows `limit` requests until it closes an hour later. Windows live in the database, so a
 * restart keeps them and every process on the database shares one budget per bucket.
 *
 * Requests are counted once per turn of the event loop: those that arrive together (under load,
 * a turn reads several) wait for the turn's end, then each bucket is counted by one statement for
 * all of them. Counting was a write (a commit) per request, the most costly statement of a page
 * on SQLite and a round trip on PostgreSQL. Counting each request at once instead, and only those
 * arriving during a count together, cost 4–31% of the requests/s over HTTP (one pair of
 * `--suites http` runs, 10 connections, each adapter): on SQLite a count never overlaps the next
 * request, so every request committed alone.
 *
 * A count also reserves places ahead, as many as the bucket's requests of that turn and those
 * served since the last count (at most 32, and 1% of the limit): the next requests take them at
 * once, with no statement and no turn to wait. Under load that is a turn's requests; a client that
 * comes back alone gets one place more each count, and after ~500 requests a count every 33 (a
 * commit and a turn's wait were ~60 µs of a ~245 µs events page through api.fetch). Waiting a turn
 * costs more than the turn: Bun sends a response completed after its request's own turn uncorked,
 * a send() for each piece of its headers (~92 µs of system time a people page against ~27; README,
 * Bun's people page, traced). A count reserves only in a window this process counted in before,
 * with room for the places below the limit as it stood then; a window's first request, or one near
 * the limit, counts only itself. Places never
 * pass the limit, so no process grants more than it across all of them, and each place is handed
 * out once. `close()` gives unused places back where no count came after them; a process killed
 * while holding some (or closed after another counted) leaves that many unused until the window
 * closes.
 */
export class HourlyRateLimiter {
  #nextSweepMs: number;
  /** Requests of this turn, by bucket, in arrival order. */
  #pending = new Map<string, Waiting[]>();
  #held = new Map<string, Held>();
  #known = new Map<string, Known>();
  /** The count in flight of each bucket that has one. */
  #counting = new Map<string, Promise<void>>();

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
    const held = this.#fromHeld(bucket, limit, this.clock.now());
    if (held) return Promise.resolve(held);
    return new Promise((settle, fail) => {
      if (this.#pending.size === 0) nextTurnForRequests(() => void this.#flush());
      const queue = this.#pending.get(bucket);
      if (queue) queue.push({ limit, settle, fail });
      else this.#pending.set(bucket, [{ limit, settle, fail }]);
    });
  }

  /**
   * Whether the bucket had room below `limit` when this process last counted in its window, and
   * that window is still open: a request now is most likely allowed (another process may have
   * spent the rest since). False for a bucket this process has not counted in this window.
   */
  hadRoom(bucket: string, limit: number): boolean {
    const known = this.#known.get(bucket);
    return known !== undefined && this.clock.now() - known.startedMs < HOUR_MS && known.used < limit;
  }

  /** The next place this process holds in the bucket's open window, as a decision; undefined when it holds none. */
  #fromHeld(bucket: string, limit: number, now: number): RateDecision | undefined {
    const held = this.#held.get(bucket);
    if (!held) return undefined;
    if (held.next <= held.last && now - held.startedMs < HOUR_MS) {
      this.#known.get(bucket)!.taken++;
      return describe({ startedMs: held.startedMs, used: held.next++ }, limit, now, true);
    }
    // Spent, or its window closed (its places went with it).
    this.#held.delete(bucket);
    return undefined;
  }

  /** Places to count ahead of `requests` in the bucket's window (see the class comment). */
  #ahead(bucket: string, requests: number, limit: number, now: number): number {
    const known = this.#known.get(bucket);
    if (!known || now - known.startedMs >= HOUR_MS) return 0;
    // The requests counted now and those served from held places since: the demand just seen.
    const wanted = requests + known.taken;
    const room = limit - known.used - requests;
    return Math.max(0, Math.min(wanted, room, MOST_AHEAD, Math.floor(limit * AHEAD_SHARE)));
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
    await Promise.all([...batch].map(([bucket, queue]) => this.#countInTurn(bucket, queue)));
  }

  /**
   * Counts a bucket's requests of one turn once the bucket's count in flight, if any, has landed
   * (on Postgres a count takes a round trip, and the next turn's can start meanwhile): they first
   * take the places it held, so one process hands out its places in order, each once.
   */
  async #countInTurn(bucket: string, queue: Waiting[]): Promise<void> {
    const previous = this.#counting.get(bucket);
    const counting = (async () => {
      await previous;
      const now = this.clock.now();
      const rest = queue.filter(({ limit, settle }) => {
        const held = this.#fromHeld(bucket, limit, now);
        if (held) settle(held);
        return !held;
      });
      if (rest.length === 0) return;
      try {
        const limit = rest[0]!.limit;
        const counted = rest.length + this.#ahead(bucket, rest.length, limit, now);
        const window = await this.store.count(bucket, now, HOUR_MS, counted);
        // The requests counted together take the first places of the count in arrival order, as
        // if each had been counted alone; the places after them are held for the next requests.
        const first = window.used - counted + 1;
        rest.forEach(({ limit, settle }, i) => {
          const used = first + i;
          settle(describe({ startedMs: window.startedMs, used }, limit, now, used <= limit));
        });
        this.#known.set(bucket, { startedMs: window.startedMs, used: window.used, taken: 0 });
        const held = { startedMs: window.startedMs, next: first + rest.length, last: Math.min(window.used, limit) };
        if (held.next <= held.last) this.#held.set(bucket, held);
      } catch (error) {
        for (const waiting of rest) waiting.fail(error);
      }
    })();
    this.#counting.set(bucket, counting);
    await counting;
    if (this.#counting.get(bucket) === counting) this.#counting.delete(bucket);
  }

  /**
   * Gives back the places held in open windows (a process closing) where no count came after
   * them: one that did has already handed out the places after them, and giving back under it
   * would hand those out again.
   */
  async close(): Promise<void> {
    await Promise.all(this.#counting.values());
    const now = this.clock.now();
    const held = [...this.#held].filter(([, h]) => h.next <= h.last && now - h.startedMs < HOUR_MS);
    this.#held.clear();
    for (const [bucket, h] of held) await this.store.release(bucket, h.startedMs, h.next - 1, h.last);
  }

  /** What the bucket stands at, without counting a request (an injected 429 reports it). */
  async peek(bucket: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const window = await this.store.find(bucket);
    const open = window && now - window.startedMs < HOUR_MS ? window : { startedMs: now, used: 0 };
    return describe(open, limit, now, open.used < limit);
  }

  /** Forgets every window (an admin reset), and the places this process held in them. */
  async clear(): Promise<void> {
    // A count in flight would hold places of a window the reset removed, and hand them out after it.
    await Promise.all(this.#counting.values());
    await this.store.clear();
    this.#held.clear();
    this.#known.clear();
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
