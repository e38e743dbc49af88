/**
 * The people page's own SQL, straight on better-sqlite3: the account view's keyset rows of each
 * person's stored JSON, whole and filed in page order (`people_whole`, as
 * core/store/people-store.ts reads an account key's page), joined into a body. Not a server anyone
 * would ship (no auth, no limits, no signed cursor, no Request/Response), but it shows how much of
 * a people page is SQLite's work, as the journey suite's "SQL + stored text" case does for events.
 * It reads as our Node adapter does the API's statement: through a memory map, the page's JSON
 * texts a bare value each and then the positions of its last person and the next
 * (core/store/people-store.ts, adapters/node/array-rows.ts).
 */
import BetterSqlite3 from 'better-sqlite3';
import { MAP_BYTES } from '../../adapters/shared/sqlite-shim.ts';

const PAGE = 100;

/** The account-wide first page of people, as stored text. */
export class PeopleSqlText {
  readonly #db: BetterSqlite3.Database;
  readonly #page: BetterSqlite3.Statement<[string, number, string, number], string>;

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#db.pragma(`mmap_size = ${MAP_BYTES}`);
    const ordered = 'FROM people_whole p WHERE p.account_id = ? ORDER BY p.last_seen DESC, p.id DESC';
    this.#page = this.#db
      .prepare<[string, number, string, number], string>(
        `SELECT json FROM (SELECT p.json ${ordered} LIMIT ?) ` +
          `UNION ALL SELECT json_array(last_seen, id) FROM (SELECT p.last_seen, p.id ${ordered} LIMIT 2 OFFSET ?)`,
      )
      .pluck(true);
  }

  /** The first page's body (of `limit` people): rows joined as text, the cursor the last row's position in plain base64url. */
  firstPage(limit = PAGE): string {
    const rows = this.#page.all(this.accountId, limit, this.accountId, limit - 1);
    // The positions follow the people: JSON arrays where a person is an object.
    const tail = rows.findIndex((json) => json.startsWith('['));
    const page = tail < 0 ? rows : rows.slice(0, tail);
    const [last, following] = tail < 0 ? [] : rows.slice(tail).map((json) => JSON.parse(json) as [number, string]);
    const next = following && last ? `,"nextCursor":"${Buffer.from(JSON.stringify(last)).toString('base64url')}"` : '';
    if (page.length === 0) return `{"data":[],"pagination":{"limit":${limit},"count":0}}`;
    // One join writes the body flat, as core/http/respond.ts does (the rows read are ours to change).
    page[0] = `{"data":[${page[0]}`;
    page[page.length - 1] += `],"pagination":{"limit":${limit},"count":${page.length}${next}}}`;
    return page.join(',');
  }

  close(): void {
    this.#db.close();
  }
}
