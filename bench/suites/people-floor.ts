/**
 * The naive floor of the people and companies lists, straight on better-sqlite3: the pages of
 * list-pages.ts (the core's keyset SQL, prepared once; rows mapped to the API's objects; one
 * `JSON.stringify`), no auth and no signing.
 */
import BetterSqlite3 from 'better-sqlite3';
import { listPages, type ListRequest, type SiteRow } from './list-pages.ts';

export type { ListRequest } from './list-pages.ts';

/** Floors for the list endpoints of one account. */
export class ListFloor {
  readonly #db: BetterSqlite3.Database;
  readonly #sites: BetterSqlite3.Statement<[string], SiteRow>;
  readonly #pages: ReturnType<typeof listPages>;

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#sites = this.#db.prepare('SELECT pk, domain, client_ref FROM sites WHERE account_id = ?');
    this.#pages = listPages((sql) => this.#db.prepare(sql));
  }

  /** One page as JSON text, `{ data, pagination }`. */
  page(request: ListRequest): string {
    return this.#pages(request, this.#sites.all(this.accountId), this.accountId);
  }

  close(): void {
    this.#db.close();
  }
}

