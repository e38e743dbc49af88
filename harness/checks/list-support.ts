/** What the list checks share: walks of the account, query building, and assertions on pages and orderings. */
import type { CheckContext, Walk } from '../context.ts';
import type { Reply } from '../http.ts';
export const SECTION = 'Pagination and ordering';

// ---------------------------------------------------------------------------------------------
// Helpers shared by the paging, filter and scope checks (all through the API, nothing else).
// ---------------------------------------------------------------------------------------------

/** Appends query parameters to a path that may already carry some. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const parts = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  if (parts.length === 0) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${parts.join('&')}`;
}

/** The path of a person's events. */
export function eventsPath(personId: string): string {
  return `/v1/people/${encodeURIComponent(personId)}/events`;
}

/** The distinct domains (lower-cased) a walk of people shows, with how many people carry each. */
export function domainsOf(walk: Walk): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of walk.rows) if (typeof p?.domain === 'string' && p.domain.length > 0) counts.set(p.domain.toLowerCase(), (counts.get(p.domain.toLowerCase()) ?? 0) + 1);
  return counts;
}

/** Whether `domain` is `filter` itself or one of its subdomains. */
export function domainWithin(domain: unknown, filter: string): boolean {
  if (typeof domain !== 'string') return false;
  const d = domain.toLowerCase();
  const f = filter.toLowerCase();
  return d === f || d.endsWith(`.${f}`);
}

/** A short JSON rendering for messages. */
export function show(value: unknown, max = 120): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Epoch milliseconds of an ISO 8601 instant, or NaN. */
export function instant(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : NaN;
}

/**
 * Fails unless the reply is a list page: `{data: [...], pagination: {limit, count, nextCursor?}}`
 * with count = data.length ≤ limit, limit echoing the requested one, nextCursor absent or a string.
 */
export function assertPage(t: CheckContext, reply: Reply, what: string, limit?: number): void {
  t.status(reply, 200, what);
  const body = reply.body;
  t.assert(body && typeof body === 'object' && Array.isArray(body.data), `${what}: body has no data array: ${reply.text.slice(0, 200)}`);
  const p = body.pagination;
  t.assert(p && typeof p === 'object' && !Array.isArray(p), `${what}: body has no pagination object`);
  t.assert(Number.isInteger(p.limit) && p.limit >= 1 && p.limit <= 100, `${what}: pagination.limit is ${show(p.limit)}, not an integer from 1 to 100`);
  if (limit !== undefined) t.assert(p.limit === limit, `${what}: pagination.limit is ${show(p.limit)}, not the requested ${limit}`);
  t.assert(Number.isInteger(p.count), `${what}: pagination.count is ${show(p.count)}, not an integer`);
  t.assert(p.count === body.data.length, `${what}: pagination.count is ${p.count} but data holds ${body.data.length} rows`);
  t.assert(body.data.length <= p.limit, `${what}: ${body.data.length} rows exceed pagination.limit ${p.limit}`);
  if ('nextCursor' in p) {
    t.assert(typeof p.nextCursor === 'string' && p.nextCursor.length > 0, `${what}: pagination.nextCursor is ${show(p.nextCursor)}; it must be a non-empty string or absent`);
  }
}

/** The account's people, walked once with limit 100. */
export function accountPeople(t: CheckContext): Promise<Walk> {
  return t.discover.walk('/v1/people', t.accountKey);
}

/** The account's companies, walked once with limit 100. */
export function accountCompanies(t: CheckContext): Promise<Walk> {
  return t.discover.walk('/v1/companies', t.accountKey);
}

/** The person with the highest visitCount among the first page of people, and their journey walked with limit 100. */
export function longestJourney(t: CheckContext): Promise<{ person: any; walk: Walk }> {
  return t.discover.once('longest-journey', async () => {
    const people = await accountPeople(t);
    const first = people.rows.slice(0, 100).filter((p) => p && typeof p.id === 'string');
    if (first.length === 0) t.notApplicable('the account has no people');
    const person = first.reduce((best, p) => ((Number(p.visitCount) || 0) > (Number(best.visitCount) || 0) ? p : best));
    const walk = await t.discover.walk(eventsPath(person.id), t.accountKey);
    if (walk.rows.length === 0) t.notApplicable(`the most active person ${person.id} has no events`);
    return { person, walk };
  });
}

/** Walks a list with the given page size, checking every page's shape, for at most `maxPages` pages. */
export async function walkPages(t: CheckContext, path: string, limit: number, maxPages: number, key: string = t.accountKey): Promise<Walk> {
  const rows: any[] = [];
  const pages: Reply[] = [];
  let cursor: string | undefined;
  do {
    const url = withQuery(path, { limit, cursor });
    const reply = await t.get(url, { key });
    assertPage(t, reply, `GET ${path} (limit ${limit}) page ${pages.length + 1}`, limit);
    pages.push(reply);
    rows.push(...reply.body.data);
    cursor = reply.body.pagination.nextCursor;
  } while (cursor && pages.length < maxPages);
  return { rows, pages, complete: !cursor };
}

/** Fails when a field repeats among rows. */
export function assertUnique(t: CheckContext, rows: any[], field: string, what: string): void {
  const seen = new Set<unknown>();
  rows.forEach((row, i) => {
    const value = row?.[field];
    t.assert(typeof value === 'string' && value.length > 0, `${what}: row ${i} has no ${field}`);
    t.assert(!seen.has(value), `${what}: ${field} ${show(value)} appears twice (row ${i})`);
    seen.add(value);
  });
}

/** Compares a small-page walk with the limit-100 walk: same rows, same order, no duplicates, no gaps. */
export function assertSameRows(t: CheckContext, small: Walk, smallLimit: number, big: Walk, field: string, what: string): void {
  assertUnique(t, small.rows, field, `${what} with limit ${smallLimit}`);
  assertUnique(t, big.rows, field, `${what} with limit 100`);
  const n = Math.min(small.rows.length, big.rows.length);
  for (let i = 0; i < n; i++) {
    const a = small.rows[i]?.[field];
    const b = big.rows[i]?.[field];
    t.assert(a === b, `${what}: row ${i} is ${show(a)} when paging by ${smallLimit} but ${show(b)} when paging by 100 (a duplicate, a gap or an unstable order)`);
  }
  if (small.complete) t.assert(big.complete ? small.rows.length === big.rows.length : small.rows.length <= big.rows.length, `${what}: paging by ${smallLimit} ends after ${small.rows.length} rows, paging by 100 found ${big.rows.length}${big.complete ? '' : '+'}`);
  if (big.complete) t.assert(small.rows.length <= big.rows.length, `${what}: paging by ${smallLimit} found ${small.rows.length} rows, more than the ${big.rows.length} of paging by 100`);
}

/** Fails unless the walk's rows are ordered by `field` descending. */
export function assertDescending(t: CheckContext, walk: Walk, field: string, what: string): void {
  walk.rows.forEach((row, i) => {
    t.assert(!Number.isNaN(instant(row?.[field])), `${what}: row ${i} has ${field} ${show(row?.[field])}, not a date-time`);
  });
  for (let i = 1; i < walk.rows.length; i++) {
    const prev = instant(walk.rows[i - 1][field]);
    const cur = instant(walk.rows[i][field]);
    t.assert(cur <= prev, `${what}: row ${i} has ${field} ${walk.rows[i][field]}, after row ${i - 1}'s ${walk.rows[i - 1][field]} — not ${field} descending`);
  }
}

/** A cursor of a one-row page of the path, or a skip. */
export async function cursorOf(t: CheckContext, path: string, what: string, key: string = t.accountKey): Promise<string> {
  const reply = await t.get(withQuery(path, { limit: 1 }), { key });
  assertPage(t, reply, `GET ${path}?limit=1`, 1);
  return t.nextCursor(reply, what);
}

/** Replaces a few characters in the middle by others of the same kind. */
export function flipMiddle(cursor: string): string {
  const chars = [...cursor];
  const mid = Math.floor(chars.length / 2);
  for (let i = Math.max(0, mid - 1); i < Math.min(chars.length, mid + 2); i++) {
    const c = chars[i]!;
    chars[i] = /[0-8]/.test(c) ? String(Number(c) + 1) : c === '9' ? '0' : /[a-y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : c === 'z' ? 'a' : /[A-Y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : c === 'Z' ? 'A' : c === 'A' ? 'B' : 'A';
  }
  return chars.join('');
}

// ---------------------------------------------------------------------------------------------

export const SMALL = 7;
export const SMALL_PAGES = 12;
