/**
 * The people page's own SQL, straight on better-sqlite3: the account view's keyset rows with each
 * person's stored JSON (whole, as core/store/person-row.ts reads it for an account key), joined
 * into a body. Not a server anyone would ship (no auth, no limits, no signed cursor, no
 * Request/Response), but it shows how much of a people page is SQLite's work, as the journey
 * suite's "SQL + stored text" case does for events. It reads as our Node adapter does: through a
 * memory map, each row as an array (adapters/node/array-rows.ts).
 */
import BetterSqlite3 from 'better-sqlite3';
import { MAP_BYTES } from '../../adapters/shared/sqlite-shim.ts';

const PAGE = 100;

/** The account-wide first page of people, as stored text. */
export class PeopleSqlText {
  readonly #db: BetterSqlite3.Database;
  readonly #page: BetterSqlite3.Statement<[string, number], [string, string, number]>;

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#db.pragma(`mmap_size = ${MAP_BYTES}`);
    this.#page = this.#db
      .prepare<[string, number], [string, string, number]>(
        'SELECT p.json_whole AS json, p.id, p.last_seen FROM people p WHERE p.account_id = ? ORDER BY p.last_seen DESC, p.id DESC LIMIT ?',
      )
      .raw(true);
  }

  /** The first page's body (of `limit` people): rows joined as text, the cursor the last row's position in plain base64url. */
  firstPage(limit = PAGE): string {
    const rows = this.#page.all(this.accountId, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last ? `,"nextCursor":"${Buffer.from(JSON.stringify([last[2], last[1]])).toString('base64url')}"` : '';
    if (page.length === 0) return `{"data":[],"pagination":{"limit":${limit},"count":0}}`;
    // One join writes the body flat, as core/http/respond.ts does.
    const parts = page.map((r) => r[0]);
    parts[0] = `{"data":[${parts[0]}`;
    parts[parts.length - 1] += `],"pagination":{"limit":${limit},"count":${page.length}${next}}}`;
    return parts.join(',');
  }

  close(): void {
    this.#db.close();
  }
}
