/**
 * The naive floor of one journey page, shared by the bare servers of every runtime: what a
 * straightforward implementation does per request. No auth, no limits, no signed cursor, no
 * validation beyond the path: look the person up, run the same keyset query our API runs for a
 * first page, turn the rows into JS objects (each stored event body parsed) and `JSON.stringify`
 * the page. The response has the shape of ours, so both send the same bytes' worth of JSON.
 */

/** A prepared statement of any of the three SQLite drivers: positional parameters, rows as objects. */
export interface NaiveStatement {
  all(...params: unknown[]): unknown[];
}

/** Prepares statements on the runtime's SQLite connection. */
export type Prepare = (sql: string) => NaiveStatement;

interface PersonRow {
  pk: number;
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  company: string | null;
}

interface EventRow {
  ts: number;
  event_id: string;
  body: string;
}

const EVENTS_PATH = /^\/v1\/people\/([^/]+)\/events$/;

/** A request handler over a database: the response body, or null for a path it does not serve. */
export function naiveJourney(prepare: Prepare): (pathname: string, search: URLSearchParams) => string | null {
  const person = prepare('select pk, id, first_name, last_name, email, company from people where id = ?');
  // The statement our API runs for a first page (events-store.ts), one extra row to know if more follow.
  const page = prepare('select ts, event_id, body from events where person_pk = ? order by ts desc, event_id desc limit ?');
  return (pathname, search) => {
    const match = EVENTS_PATH.exec(pathname);
    if (!match) return null;
    const limit = Math.min(100, Math.max(1, Number(search.get('limit') ?? 50) || 50));
    const p = person.all(decodeURIComponent(match[1]!))[0] as PersonRow | undefined;
    if (!p) return null;
    const rows = page.all(p.pk, limit + 1) as EventRow[];
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const pagination: { limit: number; count: number; nextCursor?: string } = { limit, count: items.length };
    if (rows.length > limit && last) pagination.nextCursor = btoa(JSON.stringify([last.ts, last.event_id]));
    return JSON.stringify({
      person: { id: p.id, firstName: p.first_name, lastName: p.last_name, email: p.email, company: p.company },
      data: items.map((r) => JSON.parse(r.body) as unknown),
      pagination,
    });
  };
}
