/**
 * The people page's own SQL, straight on better-sqlite3: the account view's keyset rows of each
 * person's stored JSON, whole and filed in page order (`people_whole`, as
 * core/store/people-store.ts reads an account key's page), joined into a body. Not a server anyone
 * would ship (no auth, no limits, no signed cursor, no Request/Response), but it shows how much of
 * a people page is SQLite's work, as the journey suite's "SQL + stored text" case does for events.
 * It reads as our Node adapter does the API's statement: through a memory map, the page's people
 * joined by SQLite into one blob of the bytes they are stored as (core/store/whole-people.ts) with
 * their count, and then the positions of its last person and the next.
 */
import BetterSqlite3 from 'better-sqlite3';
import { latin1Text, MAP_BYTES } from '../../adapters/shared/sqlite-shim.ts';
import { wholeText } from '../../core/store/whole-people.ts';

const PAGE = 100;

/** A row of the page statement: the joined people with their count, or a position. */
type PageRow = [json: Buffer | null, count: number | null, lastSeen: number | null, id: string | null];

/** The account-wide first page of people, as stored text. */
export class PeopleSqlText {
  readonly #db: BetterSqlite3.Database;
  readonly #page: BetterSqlite3.Statement<[string, number, string, number], PageRow>;

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#db.pragma(`mmap_size = ${MAP_BYTES}`);
    const ordered = 'FROM people_whole p WHERE p.account_id = ? ORDER BY p.last_seen DESC, p.id DESC';
    this.#page = this.#db
      .prepare<[string, number, string, number], PageRow>(
        `SELECT cast(group_concat(json, ',') AS blob), count(*), NULL, NULL FROM (SELECT p.json ${ordered} LIMIT ?) ` +
          `UNION ALL SELECT NULL, NULL, last_seen, id FROM (SELECT p.last_seen, p.id ${ordered} LIMIT 2 OFFSET ?)`,
      )
      .raw(true);
  }

  /** The first page's body (of `limit` people): their bytes joined read as text, the cursor the last row's position in plain base64url. */
  firstPage(limit = PAGE): string {
    // The aggregate always yields its row (a null blob and 0 for no one), then up to two positions.
    const [head, last, following] = this.#page.all(this.accountId, limit, this.accountId, limit - 1);
    const [json, count] = head!;
    const next = following && last ? `,"nextCursor":"${Buffer.from(JSON.stringify([last[2], last[3]])).toString('base64url')}"` : '';
    if (!json) return `{"data":[],"pagination":{"limit":${limit},"count":0}}`;
    // One template writes the body flat: the joined people are one string already.
    return `{"data":[${wholeText(json, latin1Text)}],"pagination":{"limit":${limit},"count":${count}${next}}}`;
  }

  close(): void {
    this.#db.close();
  }
}
