/**
 * What a naive implementation of the events endpoint does, straight on better-sqlite3: the same
 * keyset SQL as the core, rows turned into JS objects and `JSON.stringify`-ed (the naive floor);
 * the same with `LIMIT … OFFSET n` paging; and the SQL alone with stored bodies joined as text,
 * which is not a server anyone would ship but shows how much of a page is SQLite's own work.
 */
import BetterSqlite3 from 'better-sqlite3';

const PAGE = 100;
const COLUMNS = 'SELECT ts, event_id, body FROM events WHERE person_pk = ?';
const ORDER = 'ORDER BY ts DESC, event_id DESC';

interface EventRow {
  ts: number;
  event_id: string;
  body: string;
}

/** A keyset position: `[ts, eventId]` of the last row of the previous page. */
export type Position = [number, string];

/** The floors for one person's journey. */
export class JourneyFloor {
  readonly #db: BetterSqlite3.Database;
  readonly #personPk: number;
  readonly #first: BetterSqlite3.Statement<[number], EventRow>;
  readonly #after: BetterSqlite3.Statement<[number, number, string], EventRow>;
  readonly #offset: BetterSqlite3.Statement<[number, number], EventRow>;

  constructor(path: string, personId: string) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    const person = this.#db.prepare<[string], { pk: number }>('SELECT pk FROM people WHERE id = ?').get(personId);
    if (!person) throw new Error(`no person ${personId} in ${path}`);
    this.#personPk = person.pk;
    // One extra row, as the core fetches, to know whether a next page exists.
    this.#first = this.#db.prepare(`${COLUMNS} ${ORDER} LIMIT ${PAGE + 1}`);
    this.#after = this.#db.prepare(`${COLUMNS} AND (ts, event_id) < (?, ?) ${ORDER} LIMIT ${PAGE + 1}`);
    this.#offset = this.#db.prepare(`${COLUMNS} ${ORDER} LIMIT ${PAGE + 1} OFFSET ?`);
  }

  /** The position after the first `depth` events (null at depth 0). */
  positionAt(depth: number): Position | null {
    if (depth === 0) return null;
    const row = this.#db.prepare<[number, number], EventRow>(`${COLUMNS} ${ORDER} LIMIT 1 OFFSET ?`).get(this.#personPk, depth - 1);
    if (!row) throw new Error(`journey has fewer than ${depth} events`);
    return [row.ts, row.event_id];
  }

  /** Naive floor: keyset rows → parsed event objects → one `JSON.stringify` of the page. */
  keysetPage(after: Position | null): string {
    const rows = after ? this.#after.all(this.#personPk, after[0], after[1]) : this.#first.all(this.#personPk);
    const last = rows[PAGE - 1];
    const next = rows.length > PAGE && last ? encodePosition([last.ts, last.event_id]) : undefined;
    return naiveBody(rows, next);
  }

  /** OFFSET floor: the page `LIMIT 101 OFFSET depth` with the same object work; its cursor is the next offset. */
  offsetPage(depth: number): string {
    const rows = this.#offset.all(this.#personPk, depth);
    return naiveBody(rows, rows.length > PAGE ? String(depth + PAGE) : undefined);
  }

  /** SQL alone: the keyset rows, stored bodies joined as text with no objects made. */
  sqlTextPage(after: Position | null): string {
    const rows = after ? this.#after.all(this.#personPk, after[0], after[1]) : this.#first.all(this.#personPk);
    const page = rows.slice(0, PAGE);
    return `{"data":[${page.map((r) => r.body).join(',')}],"pagination":{"limit":${PAGE},"count":${page.length}}}`;
  }

  close(): void {
    this.#db.close();
  }
}

/** The page as a naive server renders it: every row an object, the whole page one stringify. */
function naiveBody(rows: EventRow[], nextCursor: string | undefined): string {
  const data = rows.slice(0, PAGE).map((r) => JSON.parse(r.body) as Record<string, unknown>);
  const pagination: Record<string, unknown> = { limit: PAGE, count: data.length };
  if (nextCursor !== undefined) pagination.nextCursor = nextCursor;
  return JSON.stringify({ data, pagination });
}

/** An unsigned cursor, as a naive server hands out: base64url of the position. */
export function encodePosition(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position an unsigned cursor carries. */
export function decodePosition(cursor: string): Position {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Position;
}
