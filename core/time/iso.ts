/**
 * The date parts of the days rendered so far: a row renders its firstSeen and lastSeen, and an
 * export in lastSeen order meets its people's firstSeen days at random (a cache of the last two
 * days missed on nearly every row: ~1 µs a miss, 0.19 s of an export of 100,000 people). Data
 * spans a few thousand days at most; past that the cache starts again, so it never grows unbounded.
 */
const dayPrefixes = new Map<number, string>();
const MAX_DAYS = 4096;

/** `YYYY-MM-DDT` of a day since the epoch. */
function dayPrefix(day: number): string {
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= MAX_DAYS) dayPrefixes.clear();
    prefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  return prefix;
}

/**
 * Renders epoch seconds as ISO 8601 UTC with `Z` and whole seconds: `2026-11-21T08:18:00Z`.
 * Pages and exports render two per row; each day's date part is rendered once.
 */
export function isoSeconds(epochSeconds: number): string {
  const day = Math.floor(epochSeconds / 86_400);
  const inDay = epochSeconds - day * 86_400;
  const hh = Math.floor(inDay / 3600);
  const mm = Math.floor((inDay % 3600) / 60);
  const ss = inDay % 60;
  return `${dayPrefix(day)}${hh < 10 ? '0' : ''}${hh}:${mm < 10 ? '0' : ''}${mm}:${ss < 10 ? '0' : ''}${ss}Z`;
}

/** Renders epoch seconds as ISO 8601 with an explicit numeric offset, as export jobs carry: `2026-11-21T08:18:00+00:00`. */
export function isoWithOffset(epochSeconds: number): string {
  return `${isoSeconds(epochSeconds).slice(0, 19)}+00:00`;
}

/** Whole epoch seconds from milliseconds. */
export function toEpochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses an ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with an explicit zone
 * (`Z` or `±hh:mm`). Returns epoch milliseconds, or null when the text is not such a time.
 */
export function parseIsoInstant(text: string): number | null {
  let m = DATE_ONLY.exec(text);
  if (m) {
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return sameCalendarDay(ms, m) ? ms : null;
  }
  m = DATE_TIME.exec(text);
  if (!m) return null;
  const [hh, mi, ss] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (hh > 23 || mi > 59 || ss > 59) return null;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2026-02-30 over to March; a real calendar date must round-trip.
  const local = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return sameCalendarDay(local, m) ? ms : null;
}

function sameCalendarDay(ms: number, m: RegExpExecArray): boolean {
  const d = new Date(ms);
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() + 1 === Number(m[2]) && d.getUTCDate() === Number(m[3]);
}

/** The last HTTP date rendered and the second it names: requests come many a second. */
let lastHttpDate = { second: Number.NaN, text: '' };

/** An HTTP `Date` header value (`Sun, 29 Nov 2026 23:19:09 GMT`) for epoch milliseconds, rendered once a second (~2 µs each time). */
export function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastHttpDate.second) lastHttpDate = { second, text: new Date(second * 1000).toUTCString() };
  return lastHttpDate.text;
}
