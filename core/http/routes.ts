import { IttyRouter, type IRequest } from 'itty-router';
import { getCompany, listCompanies } from '../handlers/companies.ts';
import { listEvents } from '../handlers/events.ts';
import { downloadExport, getExport, startExport } from '../handlers/exports.ts';
import { health } from '../handlers/health.ts';
import { openApi } from '../handlers/openapi.ts';
import { getPerson, listPeople } from '../handlers/people.ts';
import { getStats } from '../handlers/stats.ts';
import type { Handler, PublicHandler } from './context.ts';

/**
 * A route: most need a key; public ones (health, signed downloads) do not. A keyed GET must only
 * read: it is answered while its rate-limit count is in flight, and its answer dropped when refused.
 */
export type Route =
  | { method: 'GET' | 'POST'; path: string; public?: false; handler: Handler }
  | { method: 'GET' | 'POST'; path: string; public: true; handler: PublicHandler };

/** The endpoints of the spec, plus the download behind signed export links. */
export const ROUTES: Route[] = [
  { method: 'GET', path: '/v1/health', public: true, handler: health },
  { method: 'GET', path: '/v1/openapi.json', public: true, handler: openApi },
  { method: 'GET', path: '/v1/people', handler: listPeople },
  { method: 'GET', path: '/v1/people/:id', handler: getPerson },
  { method: 'GET', path: '/v1/people/:id/events', handler: listEvents },
  { method: 'GET', path: '/v1/companies', handler: listCompanies },
  { method: 'GET', path: '/v1/companies/:id', handler: getCompany },
  { method: 'GET', path: '/v1/stats', handler: getStats },
  { method: 'POST', path: '/v1/exports', handler: startExport },
  { method: 'GET', path: '/v1/exports/:jobId', handler: getExport },
  { method: 'GET', path: '/v1/exports/:jobId/download', public: true, handler: downloadExport },
];

/** What routing found: a route with its path parameters, a known path with another method, or nothing. */
export type Match<R = Route> =
  | { kind: 'route'; route: R; params: Record<string, string> }
  | { kind: 'wrong_method'; allow: string }
  | { kind: 'none' };

/** Matches requests to routes with itty-router; a path known under other methods is told apart from an unknown one. */
export function createMatcher<R extends { method: string; path: string }>(routes: readonly R[]): (method: string, path: string) => Promise<Match<R>> {
  const router = IttyRouter<IRequest, [], Match<R>>();
  for (const route of routes) {
    router[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](route.path, (req: IRequest) => ({ kind: 'route', route, params: req.params }));
  }
  for (const path of new Set(routes.map((r) => r.path))) {
    const allow = routes.filter((r) => r.path === path).map((r) => r.method).join(', ');
    router.all(path, () => ({ kind: 'wrong_method', allow }));
  }
  // itty-router only reads method and url, and writes params onto what it is given.
  return async (method, path) => (await router.fetch({ method, url: `http://api${path}` } as IRequest)) ?? { kind: 'none' };
}
