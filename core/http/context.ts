import type { CursorSigner } from '../paging/cursor.ts';
import type { Caller } from '../scope/view.ts';
import type { CompaniesStore } from '../store/companies-store.ts';
import type { EventsStore } from '../store/events-store.ts';
import type { KeysStore } from '../store/keys-store.ts';
import type { PeopleStore } from '../store/people-store.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { StatsStore } from '../store/stats-store.ts';
import type { Clock } from '../time/clock.ts';
import type { Query } from './query.ts';

/** What handlers work with, built once per API instance. */
export interface Services {
  clock: Clock;
  cursors: CursorSigner;
  sites: SitesStore;
  keys: KeysStore;
  people: PeopleStore;
  companies: CompaniesStore;
  events: EventsStore;
  stats: StatsStore;
  defaultPageSize: number;
}

/** One authenticated request, parsed at the edge. */
export interface RequestContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  query: Query;
  caller: Caller;
  nowSeconds: number;
  services: Services;
}

/** A handler for an authenticated route. */
export type Handler = (ctx: RequestContext) => Promise<Response>;
