/**
 * The people page's own SQL, straight on better-sqlite3: the account view's keyset rows with each
 * person's stored JSON pieces concatenated by SQLite (as core/store/person-row.ts does), joined
 * into a body. Not a server anyone would ship (no auth, no limits, no signed cursor, no
 * Request/Response), but it shows how much of a people page is SQLite's work, as the journey
 * suite's "SQL + stored text" case does for events.
 */
import BetterSqlite3 from 'better-sqlite3';

const PAGE = 100;

/** The account-wide first page of people, as stored text. */
export class PeopleSqlText {
  readonly #db: BetterSqlite3.Database;
  readonly #page: BetterSqlite3.Statement<[string, number], { json: string; id: string; last_seen: number }>;

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#page = this.#db.prepare(
      'SELECT p.json_head || p.json_figures || p.json_tail || p.json_site AS json, p.id, p.last_seen FROM people p WHERE p.account_id = ? ORDER BY p.last_seen DESC, p.id DESC LIMIT ?',
    );
  }

  /** The first page's body (of `limit` people): rows joined as text, the cursor the last row's position in plain base64url. */
  firstPage(limit = PAGE): string {
    const rows = this.#page.all(this.accountId, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last ? `,"nextCursor":"${Buffer.from(JSON.stringify([last.last_seen, last.id])).toString('base64url')}"` : '';
    return `{"data":[${page.map((r) => r.json).join(',')}],"pagination":{"limit":${limit},"count":${page.length}${next}}}`;
  }

  close(): void {
    this.#db.close();
  }
}
