import type { Admin } from '../../core/index.ts';
import { generateDemo, type DemoData, type DemoOptions } from './generate.ts';

/** Where seeding is: `done` of `total` items of the current phase. */
export interface SeedProgress {
  phase: 'sites' | 'companies' | 'people' | 'events';
  done: number;
  total: number;
}

/** What was loaded: sites registered, companies and people loaded, events newly inserted. */
export interface SeedCounts {
  sites: number;
  companies: number;
  people: number;
  events: number;
}

/** People per loadPeople call: big enough to be quick, small enough to keep each transaction short. */
const PEOPLE_CHUNK = 1_000;

/**
 * Generates demo data and loads it into an existing account: sites, companies, people, then
 * events batch by batch. It creates no account and issues no keys; that is the caller's part.
 */
export async function seedDemo(admin: Admin, accountId: string, options: DemoOptions, onProgress?: (p: SeedProgress) => void): Promise<SeedCounts> {
  return loadDemo(admin, accountId, generateDemo(options), onProgress);
}

/**
 * Loads demo data already generated into an existing account, as {@link seedDemo} does. Callers
 * that want the demo people with other events (the benchmark's exact-size journeys, or none)
 * hand in the data with their own `events` and `eventCount`.
 */
export async function loadDemo(admin: Admin, accountId: string, data: DemoData, onProgress?: (p: SeedProgress) => void): Promise<SeedCounts> {
  const report = (phase: SeedProgress['phase'], done: number, total: number) => onProgress?.({ phase, done, total });

  report('sites', 0, data.sites.length);
  for (const [i, site] of data.sites.entries()) {
    await admin.registerSite(accountId, site);
    report('sites', i + 1, data.sites.length);
  }

  report('companies', 0, data.companies.length);
  const companies = await admin.loadCompanies(accountId, data.companies);
  report('companies', companies, data.companies.length);

  let people = 0;
  report('people', 0, data.people.length);
  for (let i = 0; i < data.people.length; i += PEOPLE_CHUNK) {
    people += await admin.loadPeople(accountId, data.people.slice(i, i + PEOPLE_CHUNK));
    report('people', people, data.people.length);
  }

  // Progress counts events handed over, so the bar reaches its total even when a rerun skips
  // events already loaded; the returned count is only those newly inserted.
  let events = 0;
  let handed = 0;
  report('events', 0, data.eventCount);
  for (const batch of data.events()) {
    events += await admin.loadEvents(accountId, batch);
    handed += batch.length;
    report('events', handed, data.eventCount);
  }

  return { sites: data.sites.length, companies, people, events };
}
