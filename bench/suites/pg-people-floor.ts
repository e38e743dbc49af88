/**
 * The naive floor of the people and companies lists on PostgreSQL: people-floor.ts's keyset SQL
 * (the core's, resolved per request from the account's sites) sent through a plain `pg` client,
 * rows mapped to the API's objects and the page `JSON.stringify`-ed, as on SQLite.
 */
import type pg from 'pg';
import { EMPTY_PAGE, planPage, renderPage, type ListRequest, type Row, type SiteRow } from './list-pages.ts';
import { numberClient } from './pg-journey-floor.ts';
import type { ListFloors } from './floors.ts';

/** `?` placeholders as Postgres's `$1, $2, …` (the floor's SQL has no `?` anywhere else). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Floors for the list endpoints of one account, over a client of their own. */
export class PgListFloor implements ListFloors {
  private constructor(
    private readonly client: pg.Client,
    private readonly accountId: string,
  ) {}

  static async open(url: string, accountId: string): Promise<PgListFloor> {
    return new PgListFloor(await numberClient(url), accountId);
  }

  async page(request: ListRequest): Promise<string> {
    const sites = await this.client.query<SiteRow>('select pk, domain, client_ref from sites where account_id = $1', [this.accountId]);
    const plan = planPage(request, sites.rows, this.accountId);
    if (!plan) return EMPTY_PAGE();
    const { rows } = await this.client.query<Row>(numbered(plan.sql), plan.params);
    return renderPage(plan, rows);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
