/**
 * When a failed delivery is tried again: the Standard Webhooks schedule, with jitter that only
 * ever adds time, and a receiver's `Retry-After` on 429 and 503.
 */

/** Seconds before each attempt, counted from the failure of the one before: the first is immediate. */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [0, 5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600];

/** The most attempts a delivery gets in one run of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length;

/** Jitter adds up to this share of a delay, so retries after an outage do not all arrive at once. */
export const JITTER = 0.1;

/** The longest `Retry-After` honoured: a receiver cannot park a delivery for more than a day. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/**
 * Seconds until the next attempt after `attemptsMade` attempts failed, or null when none is left.
 * `retryAfterSeconds` (from a 429 or 503) can only push the attempt later than the schedule.
 */
export function retryDelay(attemptsMade: number, random: () => number, retryAfterSeconds?: number): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_SCHEDULE_SECONDS[attemptsMade]!;
  const scheduled = base + Math.floor(base * JITTER * Math.min(Math.max(random(), 0), 1));
  return retryAfterSeconds === undefined ? scheduled : Math.max(scheduled, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS));
}

/** A `Retry-After` value (delay seconds or an HTTP date) as seconds from `nowMs`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
