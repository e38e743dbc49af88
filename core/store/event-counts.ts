import type { Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Events per site per hour, per UTC day and per block of 16 days, so `recentEvents` is a sum over
 * buckets instead of a count over every recent event. Loading writes them in the transaction that
 * inserts the events ({@link EventTally}); stats read them through {@link recentEventsWindow}.
 */

/** The bucket lengths, in seconds. */
export const HOUR = 3_600;
export const DAY = 86_400;
/**
 * Blocks of days, counted from 1970 like the others, so a long period sums a few blocks instead
 * of a row per day; 16 days keeps a year's hours, days and blocks about equal in number.
 */
export const BLOCK = 16 * DAY;
/** Every span loading counts, shortest first. */
const SPANS = [HOUR, DAY, BLOCK] as const;

/** Rows per multi-row upsert (5 values each). */
const CHUNK = 400;

/** The first second of the bucket of length `span` that holds `ts` (floor, also before 1970). */
export function bucketStart(ts: number, span: number): number {
  return ts - (((ts % span) + span) % span);
}

/**
 * How the events after `since` (exclusive, any second) split into what the counters hold:
 * - the rest of the hour `since` falls in (`since < ts < hourEnd`);
 * - hour buckets starting in `[hourEnd, dayEnd)`: the rest of that UTC day;
 * - day buckets starting in `[dayEnd, blockEnd)`: the rest of that block of days;
 * - block buckets starting at or after `blockEnd`: every later block, the future included.
 * The partial hour is counted from whichever side of `since` is shorter: in its second half, the
 * events after `since` one by one; in its first half, the whole hour's bucket less the events from
 * `hourStart` to `since` (`fromHourStart`). Either way at most half an hour of events is read, and
 * each event after `since` is counted once, none at or before it.
 */
export interface RecentWindow {
  since: number;
  hourStart: number;
  hourEnd: number;
  dayEnd: number;
  blockEnd: number;
  fromHourStart: boolean;
}

/** The split of the events after `since` into a partial hour, whole hours, whole days and whole blocks. */
export function recentEventsWindow(since: number): RecentWindow {
  const hourStart = bucketStart(since, HOUR);
  // Each span is a whole number of the one before, all from 1970: hourEnd ≤ dayEnd ≤ blockEnd.
  return {
    since,
    hourStart,
    hourEnd: hourStart + HOUR,
    dayEnd: bucketStart(since, DAY) + DAY,
    blockEnd: bucketStart(since, BLOCK) + BLOCK,
    fromHourStart: since - hourStart < HOUR / 2,
  };
}

/** Newly inserted events of one load, counted per bucket until the load saves them. */
export class EventTally {
  readonly #buckets = new Map<string, { site_pk: number; span: number; starts_at: number; events: number }>();

  /** Counts events that were inserted: pass only rows the INSERT reported, so skipped duplicates count nothing. */
  add(inserted: readonly { site_pk: number; ts: number }[]): void {
    for (const { site_pk, ts } of inserted) {
      for (const span of SPANS) {
        const starts_at = bucketStart(ts, span);
        const key = `${site_pk}:${span}:${starts_at}`;
        const bucket = this.#buckets.get(key);
        if (bucket) bucket.events++;
        else this.#buckets.set(key, { site_pk, span, starts_at, events: 1 });
      }
    }
  }

  /**
   * Adds the tally to the stored counters, in the load's transaction. Rows go in key order, so
   * two loads upserting the same buckets on Postgres lock them in the same order (no deadlock).
   */
  async save(trx: Transaction<Database>, accountId: string): Promise<void> {
    const rows = [...this.#buckets.values()]
      .sort((a, b) => a.site_pk - b.site_pk || a.span - b.span || a.starts_at - b.starts_at)
      .map((b) => ({ account_id: accountId, ...b }));
    this.#buckets.clear();
    for (let i = 0; i < rows.length; i += CHUNK) {
      await trx
        .insertInto('event_counts')
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.columns(['site_pk', 'span', 'starts_at']).doUpdateSet((eb) => ({ events: eb('event_counts.events', '+', eb.ref('excluded.events')) })))
        .execute();
    }
  }
}
