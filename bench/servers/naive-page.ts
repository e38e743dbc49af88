/**
 * The naive floor of a journey page: what a straightforward implementation of
 * `GET /v1/people/{id}/events` does per request, shared by the bare servers of every runtime
 * (the http suite) and by the in-process floors of the journey-paging suite, so both measure
 * the same work. No auth, no limits, no signed cursor, no validation beyond the path: look the
 * person up in the benchmark's account (through the `(account_id, id)` index, as a server that
 * knows its caller's account would), run the keyset query our API runs, turn the rows into JS
 * objects (each stored event body parsed) and `JSON.stringify` the page with the person's
 * summary. The body has the shape of ours, so both send the same bytes' worth of JSON.
 */
import { naivePeople } from './naive-list.ts';

/** A prepared statement of any of the three SQLite drivers: positional parameters, rows as objects. */
export interface NaiveStatement {
  all(...params: unknown[]): unknown[];
}

/** Prepares statements on the runtime's SQLite connection. */
export type Prepare = (sql: string) => NaiveStatement;

/** A keyset position: `[ts, eventId]` of the last row of the previous page. */
export type Position = [number, string];

/** The person summary a naive journey page carries. */
export interface PersonRow {
  pk: number;
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  company: string | null;
}

/** A journey row: its sort key and the event's stored JSON. */
export interface EventRow {
  ts: number;
  event_id: string;
  body: string;
}

/** The statements our API runs for a journey page (events-store.ts), by the person's pk. */
export const JOURNEY_SQL = {
  first: 'select ts, event_id, body from events where person_pk = ? order by ts desc, event_id desc limit ?',
  after: 'select ts, event_id, body from events where person_pk = ? and (ts, event_id) < (?, ?) order by ts desc, event_id desc limit ?',
};

/** Naive journey pages over one connection; each answers null for an unknown person. */
export interface NaivePages {
  /** `limit` events after `after` (from the newest when null), the next cursor an unsigned position. */
  keyset(personId: string, limit: number, after: Position | null): string | null;
  /** The same page found by `LIMIT … OFFSET depth`: the paging a naive server reaches for first; its cursor is the next offset. */
  offset(personId: string, limit: number, depth: number): string | null;
}

/** Prepares the statements once; every page of the account's people then does the per-request work a naive server does. */
export function naivePages(prepare: Prepare, account: string): NaivePages {
  const person = prepare('select pk, id, first_name, last_name, email, company from people where account_id = ? and id = ?');
  const first = prepare(JOURNEY_SQL.first);
  const after = prepare(JOURNEY_SQL.after);
  const offset = prepare('select ts, event_id, body from events where person_pk = ? order by ts desc, event_id desc limit ? offset ?');
  const find = (personId: string) => person.all(account, personId)[0] as PersonRow | undefined;
  return {
    keyset(personId, limit, position) {
      const p = find(personId);
      if (!p) return null;
      // One extra row, as our API reads, to know whether a next page exists.
      const rows = (position ? after.all(p.pk, position[0], position[1], limit + 1) : first.all(p.pk, limit + 1)) as EventRow[];
      return naiveBody(p, rows, limit, (last) => encodePosition([last.ts, last.event_id]));
    },
    offset(personId, limit, depth) {
      const p = find(personId);
      if (!p) return null;
      const rows = offset.all(p.pk, limit + 1, depth) as EventRow[];
      return naiveBody(p, rows, limit, () => String(depth + limit));
    },
  };
}

/** The page as a naive server renders it: every row an object, the whole page one stringify. */
export function naiveBody(p: PersonRow, rows: EventRow[], limit: number, cursorAfter: (last: EventRow) => string): string {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const pagination: { limit: number; count: number; nextCursor?: string } = { limit, count: items.length };
  if (rows.length > limit && last) pagination.nextCursor = cursorAfter(last);
  return JSON.stringify({
    person: { id: p.id, firstName: p.first_name, lastName: p.last_name, email: p.email, company: p.company },
    data: items.map((r) => JSON.parse(r.body) as unknown),
    pagination,
  });
}

/** An unsigned cursor, as a naive server hands out: base64 of the position (btoa: every runtime has it). */
export function encodePosition(position: Position): string {
  return btoa(JSON.stringify(position));
}

/** The position an unsigned cursor carries. */
export function decodePosition(cursor: string): Position {
  return JSON.parse(atob(cursor)) as Position;
}

const EVENTS_PATH = /^\/v1\/people\/([^/]+)\/events$/;

/**
 * The bare servers' handler: `/v1/people/{id}/events?limit&cursor` (a journey page) and
 * `/v1/people?cursor` (a people page, naive-list.ts) → the body, or null for a path or person it
 * does not serve.
 */
export function naiveRoutes(prepare: Prepare): (pathname: string, search: URLSearchParams) => string | null {
  // The benchmark database holds one account: the one every key of the suites belongs to.
  const [account] = prepare('select id from accounts order by id limit 1').all() as { id: string }[];
  if (!account) throw new Error('the benchmark database has no account');
  const pages = naivePages(prepare, account.id);
  const people = naivePeople(prepare, account.id);
  return (pathname, search) => {
    if (pathname === '/v1/people') return people(search);
    const match = EVENTS_PATH.exec(pathname);
    if (!match) return null;
    const limit = Math.min(100, Math.max(1, Number(search.get('limit') ?? 50) || 50));
    const cursor = search.get('cursor');
    return pages.keyset(decodeURIComponent(match[1]!), limit, cursor === null ? null : decodePosition(cursor));
  };
}

/** {@link naiveRoutes} as a fetch handler, for the runtimes whose servers speak Request/Response (Bun, Deno). */
export function naiveFetch(prepare: Prepare): (request: Request) => Response {
  const handle = naiveRoutes(prepare);
  return (request) => {
    const url = new URL(request.url);
    const body = handle(url.pathname, url.searchParams);
    return new Response(body ?? '{"error":"not found"}', { status: body === null ? 404 : 200, headers: { 'content-type': 'application/json' } });
  };
}
