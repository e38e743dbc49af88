/**
 * The date parts of the days rendered so far: an export meets its people's firstSeen days at
 * random, so a small recent-days cache would miss. Reset past a few thousand days, so it stays bounded.
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

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2})))?$/;

/**
 * Parses an ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with an explicit zone
 * (`Z` or `±hh:mm`). Returns epoch milliseconds, or null when the text is not such a time.
 * Every calendar date of a four-digit year is one, checked by hand rather than by Date.parse,
 * which rolls the thirtieth of February over to March and differs between runtimes.
 */
export function parseIsoInstant(text: string): number | null {
  const m = INSTANT.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const [hh, mi, ss] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const [oh, om] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  if (hh > 23 || mi > 59 || ss > 59 || oh > 23 || om > 59) return null;
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, takes two-digit years as they are, not as the 1900s.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hh, mi, ss, ms);
  return date.getTime() - (m[8] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The last HTTP date rendered and the second it names: requests come many a second. */
let lastHttpDate = { second: Number.NaN, text: '' };

/** An HTTP `Date` header value (`Sun, 29 Nov 2026 23:19:09 GMT`) for epoch milliseconds, rendered once a second. */
export function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastHttpDate.second) lastHttpDate = { second, text: new Date(second * 1000).toUTCString() };
  return lastHttpDate.text;
}
