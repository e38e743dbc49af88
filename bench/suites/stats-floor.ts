/**
 * The old path of `GET /v1/stats`, as the naive floor of the stats cases: what StatsStore ran on
 * every request before the event counters (a `count(*)` over every event of the period, an index
 * range of millions of rows at 10,000,000 events, and people and companies counted as today),
 * straight on better-sqlite3 with prepared statements, resolving the view's sites per request and
 * writing the Statistics body with one `JSON.stringify`. No auth, no limits, no Request/Response:
 * what it leaves out only flatters it.
 */
import BetterSqlite3 from 'better-sqlite3';
import { isoSeconds } from '../../core/time/iso.ts';

interface SiteRow {
  pk: number;
  domain: string;
}

/** Stats counted the old way over one account. */
export class OldStatsPath {
  readonly #db: BetterSqlite3.Database;
  readonly #sites: BetterSqlite3.Statement<[string], SiteRow>;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    path: string,
    private readonly accountId: string,
  ) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#sites = this.#db.prepare('SELECT pk, domain FROM sites WHERE account_id = ?');
  }

  /** The `{ data: Statistics }` body for `days` at `nowSeconds`, account-wide or for a scoped key's domain. */
  stats(days: number, nowSeconds: number, scopeDomain?: string): string {
    const since = nowSeconds - days * 86_400;
    let counts: { people: number; companies: number; events: number };
    if (scopeDomain === undefined) {
      const a = this.accountId;
      counts = {
        people: this.#count('SELECT count(*) AS n FROM people WHERE account_id = ?', a),
        companies: this.#count('SELECT count(*) AS n FROM companies WHERE account_id = ?', a),
        events: this.#count('SELECT count(*) AS n FROM events WHERE account_id = ? AND ts > ?', a, since),
      };
    } else {
      const pks = this.#sites.all(this.accountId).filter((s) => s.domain === scopeDomain || s.domain.endsWith(`.${scopeDomain}`)).map((s) => s.pk);
      const list = pks.map(() => '?').join(', ');
      counts = {
        people: this.#count(`SELECT count(DISTINCT person_pk) AS n FROM person_sites WHERE site_pk IN (${list})`, ...pks),
        companies: this.#count(`SELECT count(DISTINCT company_pk) AS n FROM company_sites WHERE site_pk IN (${list})`, ...pks),
        events: this.#count(`SELECT count(*) AS n FROM events WHERE site_pk IN (${list}) AND ts > ?`, ...pks, since),
      };
    }
    const data = {
      totalPeople: counts.people,
      totalCompanies: counts.companies,
      recentEvents: counts.events,
      periodDays: days,
      dailyAverage: Math.round((counts.events / days) * 100) / 100,
      generatedAt: isoSeconds(nowSeconds),
    };
    return JSON.stringify({ data });
  }

  close(): void {
    this.#db.close();
  }

  #count(sql: string, ...params: (string | number)[]): number {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return (statement.get(...params) as { n: number }).n;
  }
}
