import type { DownloadLinkSigner } from '../exports/download-link.ts';
import type { ExportRunner } from '../exports/runner.ts';
import type { CursorSigner } from '../paging/cursor.ts';
import type { ExportsStore } from '../store/exports-store.ts';
import type { Caller } from '../scope/view.ts';
import type { CompaniesStore } from '../store/companies-store.ts';
import type { EventsStore } from '../store/events-store.ts';
import type { KeysStore } from '../store/keys-store.ts';
import type { PeopleStore } from '../store/people-store.ts';
import type { SitesStore } from '../store/sites-store.ts';
import type { StatsStore } from '../store/stats-store.ts';
import type { Clock } from '../time/clock.ts';
import type { Query } from './query.ts';
import type { CoreRequest, Reply } from './reply.ts';

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
  exports: { store: ExportsStore; runner: ExportRunner; links: DownloadLinkSigner };
  defaultPageSize: number;
}

/** One request, parsed at the edge. */
export interface PublicContext {
  request: CoreRequest;
  url: URL;
  params: Record<string, string>;
  query: Query;
  nowSeconds: number;
  services: Services;
}

/** One authenticated request: who is calling is known. */
export interface RequestContext extends PublicContext {
  caller: Caller;
}

/**
 * The context of an authenticated request: the public one and its caller. Every field is named
 * (a new one must be added here): a literal of fixed shape is cheaper than a spread.
 */
export function withCaller(base: PublicContext, caller: Caller): RequestContext {
  return { request: base.request, url: base.url, params: base.params, query: base.query, nowSeconds: base.nowSeconds, services: base.services, caller };
}

/** A handler for an authenticated route. */
export type Handler = (ctx: RequestContext) => Promise<Reply>;
/** A handler for a route that needs no key. */
export type PublicHandler = (ctx: PublicContext) => Promise<Reply>;
