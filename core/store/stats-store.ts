import type { View } from '../scope/view.ts';
import type { Db } from './schema.ts';

/** The counts behind the statistics resource. */
export interface StatCounts {
  totalPeople: number;
  totalCompanies: number;
  recentEvents: number;
}

/** Counts people, companies and recent events within a view; each count is an index range scan. */
export class StatsStore {
  constructor(private readonly db: Db) {}

  /** Counts within the view, with events since `sinceSeconds` (exclusive). */
  async counts(view: View, sinceSeconds: number): Promise<StatCounts> {
    if (view.kind === 'empty') return { totalPeople: 0, totalCompanies: 0, recentEvents: 0 };
    if (view.kind === 'account') {
      const [people, companies, events] = await Promise.all([
        this.db.selectFrom('people').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', view.accountId).executeTakeFirstOrThrow(),
        this.db.selectFrom('companies').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', view.accountId).executeTakeFirstOrThrow(),
        this.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', view.accountId)
          .where('ts', '>', sinceSeconds)
          .executeTakeFirstOrThrow(),
      ]);
      return { totalPeople: people.n, totalCompanies: companies.n, recentEvents: events.n };
    }
    const sitePks = view.sites.map((s) => s.pk);
    const [people, companies, events] = await Promise.all([
      this.db
        .selectFrom('person_sites')
        .select((eb) => eb.fn.count<number>('person_pk').distinct().as('n'))
        .where('site_pk', 'in', sitePks)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('company_sites')
        .select((eb) => eb.fn.count<number>('company_pk').distinct().as('n'))
        .where('site_pk', 'in', sitePks)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('site_pk', 'in', sitePks)
        .where('ts', '>', sinceSeconds)
        .executeTakeFirstOrThrow(),
    ]);
    return { totalPeople: people.n, totalCompanies: companies.n, recentEvents: events.n };
  }
}
