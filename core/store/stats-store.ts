import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import type { View } from '../scope/view.ts';
import { CompiledQueries, type Param } from './compiled-queries.ts';
import { BLOCK, DAY, HOUR, recentEventsWindow } from './event-counts.ts';
import { siteSetPattern } from './site-sets.ts';
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
 * Counts people, companies and recent events within a view in one statement compiled once per
 * shape, from counters loading keeps (event-counts.ts, site-sets.ts), so no count grows with the
 * events or the people.
 */
export class StatsStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /** Counts within the view, with events after `sinceSeconds` (exclusive). */
  async counts(view: View, sinceSeconds: number): Promise<StatCounts> {
    if (view.kind === 'empty') return { totalPeople: 0, totalCompanies: 0, recentEvents: 0 };
    const { since, hourStart, hourEnd, dayEnd, blockEnd, fromHourStart } = recentEventsWindow(sinceSeconds);
    const values: Record<string, unknown> = { accountId: view.accountId, since, dayEnd, blockEnd, ...(fromHourStart ? { hourStart } : { hourEnd }) };
    if (view.kind !== 'account') {
      view.sites.forEach((site, i) => {
        values[`site${i}`] = site.pk;
        values[`like${i}`] = siteSetPattern(site.pk);
      });
    }
    const shape = view.kind === 'account' ? 'account' : `sites${view.sites.length}`;
    const [row] = await this.#queries.rows<CountsRow>(`counts:${shape}:${fromHourStart}`, (p) => countsQuery(this.db, p, view, fromHourStart), values);
    return { totalPeople: Number(row!.people), totalCompanies: Number(row!.companies), recentEvents: Number(row!.events) };
  }
}

/**
 * People and companies in the view (each once, however many of its sites they visited), and the
 * events after `since`: later days from day buckets, the rest of that day from hour buckets, and
 * the partial hour from the events on the shorter side of `since` (see recentEventsWindow).
 */
function countsQuery(db: Db, p: Param, view: VisibleView, fromHourStart: boolean) {
  const sites = sitePlaceholders(view, p);
  const inView = <T extends SelectQueryBuilder<Database, any, any>>(query: T, column: 'account_id' | 'site_pk'): T =>
    (view.kind === 'account' ? query.where('account_id', '=', p('accountId')) : query.where(column, 'in', sites)) as T;
  const buckets = (span: number, from: string, until?: string) => {
    let query = inView(db.selectFrom('event_counts').where('span', '=', span).where('starts_at', '>=', p(from)), 'site_pk');
    if (until) query = query.where('starts_at', '<', p(until));
    return query.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('events'), sql.lit(0)).as('n'));
  };
  const eventsCount = (from: [string, '>' | '>='], until: [string, '<' | '<=']) =>
    inView(db.selectFrom('events').where('ts', from[1], p(from[0])).where('ts', until[1], p(until[0])), 'site_pk').select((eb) => eb.fn.countAll<number>().as('n'));
  // A person or company is in the view when the set of sites they were seen on meets the view's.
  const members = (kind: 'person' | 'company') => {
    const query = db.selectFrom('site_sets').where('account_id', '=', p('accountId')).where('kind', '=', kind);
    return (view.kind === 'account' ? query : query.where((eb) => eb.or(sites.map((_, i) => eb('sites', 'like', p(`like${i}`))))))
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('members'), sql.lit(0)).as('n'));
  };
  const sum = (...parts: Expression<unknown>[]) => sql<number>`${sql.join(parts.map((part) => sql`(${part})`), sql` + `)}`;
  // Whole hours from `hoursFrom` to the day's end, the block's remaining days, every later block.
  const wholeBuckets = (hoursFrom: string) => [buckets(HOUR, hoursFrom, 'dayEnd'), buckets(DAY, 'dayEnd', 'blockEnd'), buckets(BLOCK, 'blockEnd')];
  return db.selectNoFrom([
    members('person').as('people'),
    members('company').as('companies'),
    fromHourStart
      ? sql`${sum(...wholeBuckets('hourStart'))} - (${eventsCount(['hourStart', '>='], ['since', '<='])})`.as('events')
      : sum(eventsCount(['since', '>'], ['hourEnd', '<']), ...wholeBuckets('hourEnd')).as('events'),
  ]);
}
