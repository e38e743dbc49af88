import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import { DAY, HOUR, recentEventsWindow } from './event-counts.ts';
import { sitePlaceholders, type VisibleView } from './view-params.ts';
import type { Database, Db } from './schema.ts';

/** The counts behind the statistics resource. */
export interface StatCounts {
  totalPeople: number;
  totalCompanies: number;
  recentEvents: number;
}

/** What the one stats statement selects; Postgres sums are `numeric`, so numbers are read with `Number`. */
interface CountsRow {
  people: number | string;
  companies: number | string;
  events: number | string;
}

/**
 * Counts people, companies and recent events within a view, in one statement compiled once per
 * shape. Recent events come from the per-site hour and day counters (event-counts.ts): at most
 * one row per site and day of the period plus one per site and hour of its first day, and an
 * index range over the events of one partial hour, however many events the period holds.
 */
export class StatsStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /** Counts within the view, with events after `sinceSeconds` (exclusive). */
  async counts(view: View, sinceSeconds: number): Promise<StatCounts> {
    if (view.kind === 'empty') return { totalPeople: 0, totalCompanies: 0, recentEvents: 0 };
    const { since, hourEnd, dayEnd } = recentEventsWindow(sinceSeconds);
    const values: Record<string, unknown> = { since, hourEnd, dayEnd };
    if (view.kind === 'account') values.accountId = view.accountId;
    else view.sites.forEach((site, i) => (values[`site${i}`] = site.pk));
    const shape = view.kind === 'account' ? 'account' : `sites${view.sites.length}`;
    const [row] = await this.#queries.rows<CountsRow>(`counts:${shape}`, (p) => countsQuery(this.db, p, view), values);
    return { totalPeople: Number(row!.people), totalCompanies: Number(row!.companies), recentEvents: Number(row!.events) };
  }
}

/**
 * People and companies in the view (distinct across its sites), and the events after `since`:
 * the partial hour counted from the events, the rest of that day from hour buckets, later days
 * from day buckets.
 */
function countsQuery(db: Db, p: Param, view: VisibleView) {
  const sites = sitePlaceholders(view, p);
  const inView = <T extends SelectQueryBuilder<Database, any, any>>(query: T, column: 'account_id' | 'site_pk'): T =>
    (view.kind === 'account' ? query.where('account_id', '=', p('accountId')) : query.where(column, 'in', sites)) as T;
  const buckets = (span: number, from: string, until?: string) => {
    let query = inView(db.selectFrom('event_counts').where('span', '=', span).where('starts_at', '>=', p(from)), 'site_pk');
    if (until) query = query.where('starts_at', '<', p(until));
    return query.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('events'), sql.lit(0)).as('n'));
  };
  const partialHour = inView(db.selectFrom('events').where('ts', '>', p('since')).where('ts', '<', p('hourEnd')), 'site_pk').select((eb) => eb.fn.countAll<number>().as('n'));
  const people =
    view.kind === 'account'
      ? db.selectFrom('people').where('account_id', '=', p('accountId')).select((eb) => eb.fn.countAll<number>().as('n'))
      : db.selectFrom('person_sites').where('site_pk', 'in', sites).select((eb) => eb.fn.count<number>('person_pk').distinct().as('n'));
  const companies =
    view.kind === 'account'
      ? db.selectFrom('companies').where('account_id', '=', p('accountId')).select((eb) => eb.fn.countAll<number>().as('n'))
      : db.selectFrom('company_sites').where('site_pk', 'in', sites).select((eb) => eb.fn.count<number>('company_pk').distinct().as('n'));
  const sum = (...parts: Expression<unknown>[]) => sql<number>`${sql.join(parts.map((part) => sql`(${part})`), sql` + `)}`;
  return db.selectNoFrom([
    people.as('people'),
    companies.as('companies'),
    sum(partialHour, buckets(HOUR, 'hourEnd', 'dayEnd'), buckets(DAY, 'dayEnd')).as('events'),
  ]);
}
