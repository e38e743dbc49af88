/**
 * Broken variants of the list filters: each drops one filter before the API sees it, so the
 * answer is the unfiltered list. The filters whose names the spec leaves open use our server's
 * names (which its OpenAPI document gives the harness).
 */
import type { Api } from '../../../core/index.ts';
import { normalizeDomain } from '../../../core/scope/domain.ts';
import { parseIsoInstant } from '../../../core/time/iso.ts';
import { HOT_LEADS, LAST_SEEN_AFTER } from '../../../core/handlers/filters.ts';
import { endpointOf, Keys, mapJson, withQuery, type Endpoint, type FetchHandler, type Variant } from './kit.ts';

/**
 * A wrapper that deletes `param` on the given endpoints when its one value satisfies `when`; for
 * account keys only, when `accountOnly`. A variant ignoring a filter picks the values the API
 * accepts, so that a malformed one is still refused; one accepting malformed values picks those.
 */
function dropping(param: string, endpoints: Endpoint[], when: (value: string) => boolean, accountOnly = false): (api: Api) => FetchHandler {
  return (api) => {
    const keys = new Keys(api);
    return {
      async fetch(request) {
        const values = new URL(request.url).searchParams.getAll(param);
        if (!endpoints.includes(endpointOf(request).endpoint) || values.length !== 1 || !when(values[0]!)) return api.fetch(request);
        // With a scoped key, dropping a client filter would also widen past the ceiling: another rule.
        if (accountOnly && (await keys.isScoped(request))) return api.fetch(request);
        return api.fetch(await withQuery(request, (p) => p.delete(param)));
      },
    };
  };
}

/**
 * A wrapper that, when `param` is given on the endpoints (with an account key), leaves out every
 * other row of each page: what it returns still matches the filter (sound), but not all that
 * matches comes back (incomplete). The page's count follows, so only a completeness check can tell.
 */
function thinning(param: string, endpoints: Endpoint[]): (api: Api) => FetchHandler {
  return (api) => {
    const keys = new Keys(api);
    return {
      async fetch(request) {
        const given = new URL(request.url).searchParams.has(param);
        if (!given || !endpoints.includes(endpointOf(request).endpoint) || (await keys.isScoped(request))) return api.fetch(request);
        const response = await api.fetch(request);
        if (response.status !== 200) return response;
        return mapJson(response, (body) => {
          if (!Array.isArray(body?.data) || body.data.length < 2) return;
          body.data = body.data.filter((_: unknown, i: number) => i % 2 === 0);
          body.pagination.count = body.data.length;
        });
      },
    };
  };
}

/**
 * A wrapper under which `client_ref` on /v1/people (with an account key) keeps only the first
 * registered domain (alphabetically) of the clients `broken` picks among those registered on
 * several domains (given sorted): their other domains' people are lost.
 */
function firstDomainOnly(broken: (refs: string[]) => string[]): (api: Api) => FetchHandler {
  return (api) => {
    const keys = new Keys(api);
    return {
      async fetch(request) {
        const ref = new URL(request.url).searchParams.get('client_ref');
        const caller = await keys.of(request);
        if (endpointOf(request).endpoint !== 'people' || ref === null || !caller || caller.domain) return api.fetch(request);
        const sites = await api.admin.listSites(caller.accountId);
        const domainsOf = (r: string) => sites.filter((s) => s.clientRef === r).map((s) => s.domain.toLowerCase()).sort();
        const several = [...new Set(sites.flatMap((s) => (s.clientRef ? [s.clientRef] : [])))].filter((r) => domainsOf(r).length > 1).sort();
        const response = await api.fetch(request);
        if (response.status !== 200 || !broken(several).includes(ref)) return response;
        const first = domainsOf(ref)[0];
        return mapJson(response, (body) => {
          body.data = body.data.filter((p: any) => String(p.domain).toLowerCase() === first);
          body.pagination.count = body.data.length;
        });
      },
    };
  };
}

export const filterVariants: Variant[] = [
  {
    id: 'domain-filter-ignored',
    rule: 'The domain filter on /v1/people and events matches the domain and its subdomains only.',
    only: ['filters.'],
    wrap: dropping('domain', ['people', 'events'], (v) => v.length <= 253 && normalizeDomain(v) !== null, true),
  },
  {
    id: 'client-ref-filter-ignored',
    rule: 'The client_ref filter covers only the domains registered under that client reference.',
    only: ['filters.'],
    wrap: dropping('client_ref', ['people', 'events'], (v) => v.length > 0 && v.length <= 128, true),
  },
  {
    id: 'event-type-ignored',
    rule: 'event_type narrows a person\'s events to one kind of event.',
    only: ['filters.'],
    wrap: dropping('event_type', ['events'], (v) => /^[A-Za-z0-9_.:-]{1,64}$/.test(v)),
  },
  {
    id: 'hot-leads-filter-ignored',
    rule: 'The hot-leads filter on /v1/people returns only ICP-matched hot leads.',
    only: ['filters.'],
    wrap: dropping(HOT_LEADS, ['people'], (v) => v === 'true' || v === 'false'),
  },
  {
    id: 'last-seen-after-ignored',
    rule: 'The lastSeen-after filter returns only records whose lastSeen is after the given date.',
    only: ['filters.'],
    wrap: dropping(LAST_SEEN_AFTER, ['people', 'companies'], (v) => parseIsoInstant(v) !== null),
  },
  {
    id: 'malformed-last-seen-accepted',
    rule: 'A lastSeen-after value that is not an ISO 8601 date is a 400 validation_error, not ignored.',
    only: ['filters.last-seen-after-malformed'],
    wrap: dropping(LAST_SEEN_AFTER, ['people', 'companies'], (v) => parseIsoInstant(v) === null),
  },
  {
    id: 'malformed-hot-leads-accepted',
    rule: 'A hot-leads value that is not a boolean is a 400 validation_error, not ignored.',
    only: ['filters.hot-leads-malformed'],
    wrap: dropping(HOT_LEADS, ['people'], (v) => v !== 'true' && v !== 'false'),
  },
  {
    id: 'events-domain-filter-ignored',
    rule: 'On /v1/people/{id}/events, domain narrows an account key\'s journey to that domain and its subdomains.',
    only: ['filters.events-domain'],
    wrap: dropping('domain', ['events'], (v) => v.length <= 253 && normalizeDomain(v) !== null, true),
  },
  {
    id: 'events-client-ref-filter-ignored',
    rule: 'On /v1/people/{id}/events, client_ref narrows an account key\'s journey to that client\'s domains.',
    only: ['filters.events-client-ref'],
    wrap: dropping('client_ref', ['events'], (v) => v.length > 0 && v.length <= 128, true),
  },
  {
    id: 'client-ref-single-domain',
    rule: 'client_ref covers every domain registered under that client reference, not only one of them.',
    only: ['filters.client-ref'],
    wrap: firstDomainOnly((refs) => refs),
  },
  {
    id: 'client-ref-single-domain-one-client',
    rule: 'client_ref covers every domain registered under each client reference, not only for some clients.',
    only: ['filters.client-ref'],
    // The first client (alphabetically) of those with several domains: another has as many.
    wrap: firstDomainOnly((refs) => refs.slice(0, 1)),
  },
  {
    id: 'domain-filter-incomplete',
    rule: 'domain returns every person of that domain and its subdomains, not only some of them.',
    only: ['filters.domain'],
    wrap: thinning('domain', ['people']),
  },
  {
    id: 'hot-leads-incomplete',
    rule: 'The hot-leads filter returns every hot lead, not only some of them.',
    only: ['filters.hot-leads'],
    wrap: thinning(HOT_LEADS, ['people']),
  },
  {
    id: 'last-seen-after-incomplete',
    rule: 'The lastSeen-after filter returns every record seen after the instant, not only some of them.',
    only: ['filters.people-last-seen-after', 'filters.companies-last-seen-after'],
    wrap: thinning(LAST_SEEN_AFTER, ['people', 'companies']),
  },
  {
    id: 'event-type-incomplete',
    rule: 'event_type returns every event of that type in the journey, not only some of them.',
    only: ['filters.event-type'],
    wrap: thinning('event_type', ['events']),
  },
];
