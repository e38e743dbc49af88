/**
 * The people page's own SQL, straight on better-sqlite3: the account view's keyset rows of each
 * person's stored JSON pieces joined (as core/store/people-store.ts reads an account key's page),
 * joined into a body. Not a server anyone would ship (no auth, no limits, no signed cursor, no
 * Request/Response), but it shows how much of a people page is SQLite's work, as the journey
 * suite's "SQL + stored text" case does for events. It reads through a memory map, as our Node
 * adapter does, and rows as arrays.
 */
import BetterSqlite3 from 'better-sqlite3';
import { MAP_BYTES } from '../../adapters/shared/sqlite-shim.ts';

const PAGE = 100;

/** A row of the page statement: a person's JSON and position. */
type PageRow = [json: string, lastSeen: number, id: string];

/** The account-wide first page of people, as stored text. */
export class PeopleSqlText {
  readonly #db: BetterSqlite3.Database;
  readonly #page: BetterSqlite3.Statement<[string, number], PageRow>;

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#db.pragma(`mmap_size = ${MAP_BYTES}`);
    this.#page = this.#db
      .prepare<[string, number], PageRow>(
        'SELECT p.json_head || p.json_figures || p.json_tail || p.json_site, p.last_seen, p.id FROM people p WHERE p.account_id = ? ORDER BY p.last_seen DESC, p.id DESC LIMIT ?',
      )
      .raw(true);
  }

  /** The first page's body (of `limit` people), the cursor the last row's position in plain base64url. */
  firstPage(limit = PAGE): string {
    const rows = this.#page.all(this.accountId, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last ? `,"nextCursor":"${Buffer.from(JSON.stringify([last[1], last[2]])).toString('base64url')}"` : '';
    return `{"data":[${page.map((r) => r[0]).join(',')}],"pagination":{"limit":${limit},"count":${page.length}${next}}}`;
  }

  close(): void {
    this.#db.close();
  }
}
