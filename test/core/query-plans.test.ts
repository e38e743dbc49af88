import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Site, View } from '../../core/scope/view.ts';
import { createWorld, type World } from '../support/world.ts';

/**
 * Every list query must walk an index in the list's order: a keyset range scan, with no
 * temporary B-tree (a sort) and no scan of a whole table. Kysely's compile() gives the SQL
 * each store would run, and SQLite's EXPLAIN QUERY PLAN says how it would run it.
 */
describe('query plans of the list endpoints', () => {
  let world: World;
  const after = { sortValue: 1_800_000_000, id: 'per_050' };

  /** Runs a store call, recording the SQL it sends, and returns SQLite's plan for each statement. */
  const capture = async (run: () => Promise<unknown>): Promise<string[]> => {
    const executor = (world.api.db as any).getExecutor();
    const executeQuery = executor.executeQuery.bind(executor);
    const seen: CompiledQuery[] = [];
    executor.executeQuery = (compiled: CompiledQuery, id: unknown) => {
      seen.push(compiled);
      return executeQuery(compiled, id);
    };
    try {
      await run();
    } finally {
      executor.executeQuery = executeQuery;
    }
    const plans: string[] = [];
    for (const q of seen) {
      const { rows } = await world.api.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]));
      plans.push(rows.map((r) => r.detail).join(' | '));
    }
    return plans;
  };

  beforeAll(async () => {
    world = await createWorld();
  });

  const site = (): Site => ({ pk: 1, domain: 'alpha.example', clientRef: 'alpha' });
  const shop = (): Site => ({ pk: 2, domain: 'shop.alpha.example', clientRef: 'alpha' });
  const views = (): View[] => [
    { kind: 'account', accountId: 'acc_a' },
    { kind: 'sites', accountId: 'acc_a', sites: [site(), shop()] },
    { kind: 'scoped', accountId: 'acc_a', sites: [site()] },
    { kind: 'scoped', accountId: 'acc_a', sites: [site(), shop()] },
  ];

  it('pages people by an index, without sorting, in every view and filter combination', async () => {
    const { PeopleStore } = await import('../../core/store/people-store.ts');
    const store = new PeopleStore(world.api.db);
    for (const view of views()) {
      for (const filters of [{}, { hotLeadsOnly: true }, { lastSeenAfter: 1_700_000_000 }]) {
        const [plan] = await capture(() => store.page(view, filters, after, 51));
        if (process.env.SHOW_PLANS) console.log(plan);
        expect(plan, `${view.kind} ${JSON.stringify(filters)}`).toMatch(/SEARCH \w+ USING (COVERING )?INDEX (people(_hot)?_by_last_seen|person_sites(_hot)?_by_last_seen|person_sites(_hot)?_by_person_last_seen)/);
        expect(plan).not.toMatch(/TEMP B-TREE|SCAN (p|ps)\b(?! USING)/);
      }
    }
  });

  it('pages companies by an index, without sorting', async () => {
    const { CompaniesStore } = await import('../../core/store/companies-store.ts');
    const store = new CompaniesStore(world.api.db);
    for (const view of views()) {
      const [plan] = await capture(() => store.page(view, {}, after, 51));
      expect(plan, view.kind).toMatch(/SEARCH \w+ USING (COVERING )?INDEX (companies_by_last_seen|company_sites_by_last_seen)/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('merges one index range per site for a scoped key over several sites and for an account key under a site filter, and reads one person or company of a scope by keys', async () => {
    const { PeopleStore } = await import('../../core/store/people-store.ts');
    const { CompaniesStore } = await import('../../core/store/companies-store.ts');
    const view: View = { kind: 'scoped', accountId: 'acc_a', sites: [site(), shop()] };
    const people = new PeopleStore(world.api.db);
    const companies = new CompaniesStore(world.api.db);
    for (const [what, run, index] of [
      ['people', () => people.page(view, {}, after, 51), 'person_sites_by_last_seen'],
      ['hot people', () => people.page(view, { hotLeadsOnly: true }, null, 51), 'person_sites_hot_by_last_seen'],
      ['companies', () => companies.page(view, { lastSeenAfter: 1_700_000_000 }, after, 51), 'company_sites_by_last_seen'],
      ['people of an account key under a site filter', () => people.page({ ...view, kind: 'sites' }, {}, after, 51), 'person_sites_by_person_last_seen'],
      ['hot people of an account key under a site filter', () => people.page({ ...view, kind: 'sites' }, { hotLeadsOnly: true, lastSeenAfter: 1_700_000_000 }, null, 51), 'person_sites_hot_by_person_last_seen'],
    ] as const) {
      const [plan] = await capture(run);
      if (process.env.SHOW_PLANS) console.log(plan);
      expect(plan, what).toMatch(/MERGE \(UNION ALL\)/);
      expect(plan!.match(new RegExp(`SEARCH a USING INDEX ${index} \\(site_pk=\\?`, 'g')), what).toHaveLength(2);
      expect(plan, what).not.toMatch(/TEMP B-TREE|\bSCAN (a|x|p|c|ps|cs|people|companies|person_sites|company_sites)\b/);
    }
    for (const [what, run] of [
      ['person', () => people.get(view, 'per_001')],
      ['company', () => companies.get(view, 'co_01')],
    ] as const) {
      const [plan] = await capture(run);
      if (process.env.SHOW_PLANS) console.log(plan);
      expect(plan, what).not.toMatch(/\bSCAN (a|x|p|c|people|companies|person_sites|company_sites)\b/);
    }
  });

  it('pages a journey by an index from the cursor\'s row value, without sorting, with and without site and type filters', async () => {
    const { EventsStore } = await import('../../core/store/events-store.ts');
    const store = new EventsStore(world.api.db);
    const position = { sortValue: 1_800_000_000, id: 'evt_0100' };
    for (const view of views()) {
      for (const type of [undefined, 'click']) {
        const [plan] = await capture(() => store.page(view, 'per_002', type, position, 101));
        if (process.env.SHOW_PLANS) console.log(plan);
        expect(plan, `${view.kind} ${type}`).toMatch(/SEARCH events USING INDEX events_journey\w* \([^)]*\(ts,event_id\)<\(\?,\?\)\)/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});
