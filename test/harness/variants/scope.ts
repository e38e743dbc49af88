/**
 * Broken variants of domain-scoped keys. Most let a scoped key read a little more than its
 * domain by quietly answering one kind of request as the account key would; one reads less.
 */
import type { Api } from '../../../core/index.ts';
import { endpointOf, errorBody, Keys, mapJson, rebuild, withKey, withText, type FetchHandler, type Variant } from './kit.ts';

/** Whether a scoped key can see the person (its own GET /v1/people/{id} answers 200). */
async function personVisible(api: Api, request: Request): Promise<boolean> {
  const url = new URL(request.url);
  url.pathname = url.pathname.replace(/\/events\/?$/, '');
  url.search = '';
  const probe = await api.fetch(await rebuild(request, { url }));
  return probe.status === 200;
}

/**
 * A wrapper that resends the request with an account key of the caller's account whenever `when`
 * holds, and passes it through untouched otherwise.
 */
function answeringAsAccount(when: (request: Request, keys: Keys, api: Api) => Promise<boolean>): (api: Api) => FetchHandler {
  return (api) => {
    const keys = new Keys(api);
    return {
      async fetch(request) {
        if (!(await when(request, keys, api))) return api.fetch(request);
        return api.fetch(await withKey(request, await keys.accountKeyFor(request)));
      },
    };
  };
}

export const scopeVariants: Variant[] = [
  {
    id: 'scoped-domain-widens',
    rule: 'A scoped key passing domain for another client\'s domain gets nothing: the scope is a ceiling, not a default.',
    only: ['scope.'],
    wrap: answeringAsAccount(async (request, keys, api) => {
      const { endpoint, id } = endpointOf(request);
      const domain = new URL(request.url).searchParams.get('domain');
      const info = await keys.of(request);
      if (!info?.domain || domain === null || domain.toLowerCase() === info.domain) return false;
      return endpoint === 'people' || (endpoint === 'events' && !!id && (await personVisible(api, request)));
    }),
  },
  {
    id: 'scoped-client-ref-widens',
    rule: 'A scoped key passing another client\'s client_ref sees none of that client\'s rows: the scope is a ceiling.',
    only: ['scope.client-ref-ceiling'],
    wrap: answeringAsAccount(async (request, keys, api) => {
      const { endpoint, id } = endpointOf(request);
      if (!new URL(request.url).searchParams.has('client_ref') || !(await keys.isScoped(request))) return false;
      return endpoint === 'people' || (endpoint === 'events' && !!id && (await personVisible(api, request)));
    }),
  },
  {
    id: 'scoped-people-leak',
    rule: 'With a domain-scoped key, /v1/people returns only that client\'s visitors.',
    only: ['scope.'],
    wrap: answeringAsAccount(async (request, keys) => endpointOf(request).endpoint === 'people' && (await keys.isScoped(request))),
  },
  {
    id: 'scoped-events-leak',
    rule: 'With a domain-scoped key, /v1/people/{id}/events returns only events from that key\'s domain.',
    only: ['scope.'],
    wrap: answeringAsAccount(async (request, keys, api) => {
      const { endpoint, id } = endpointOf(request);
      if (endpoint !== 'events' || !id || !(await keys.isScoped(request))) return false;
      // A person out of scope still answers 404; only the events of a visible one leak.
      return personVisible(api, request);
    }),
  },
  {
    id: 'scoped-person-visible',
    rule: 'With a domain-scoped key, a person of another client answers 404, not the person.',
    only: ['scope.'],
    wrap(api) {
      const keys = new Keys(api);
      return {
        async fetch(request) {
          const response = await api.fetch(request);
          if (endpointOf(request).endpoint !== 'person' || response.status !== 404 || !(await keys.isScoped(request))) return response;
          const asAccount = await api.fetch(await withKey(request, await keys.accountKeyFor(request)));
          return asAccount.status === 200 ? asAccount : response;
        },
      };
    },
  },
  {
    id: 'scoped-exact-site',
    rule: 'A domain-scoped key reads its domain and its subdomains, as the domain filter matches them (the scope is stated in its terms).',
    only: ['scope.'],
    // Reads as the key's exact site only, as this server once did: people and events of its
    // subdomains' sites are dropped from lists, and such a person answers 404.
    wrap(api) {
      const keys = new Keys(api);
      return {
        async fetch(request) {
          const response = await api.fetch(request);
          const domain = (await keys.of(request))?.domain;
          const { endpoint, id } = endpointOf(request);
          if (!domain || response.status !== 200) return response;
          const exact = (row: any) => typeof row?.domain === 'string' && row.domain.toLowerCase() === domain;
          if (endpoint === 'person') {
            const body = (await response.clone().json()) as any;
            return exact(body?.data) ? response : withText(response, errorBody(404, 'not_found', `No person with id ${id} is visible to this key.`), 404);
          }
          if (endpoint !== 'people' && endpoint !== 'events') return response;
          return mapJson(response, (body) => {
            body.data = body.data.filter(exact);
            body.pagination.count = body.data.length;
          });
        },
      };
    },
  },
  {
    id: 'scoped-export-allowed',
    rule: 'Domain-scoped keys cannot call POST /v1/exports: they get 403 scope_not_supported.',
    only: ['scope.', 'exports.'],
    wrap: answeringAsAccount(async (request, keys) => {
      const { endpoint } = endpointOf(request);
      return (endpoint === 'exports' || endpoint === 'export') && (await keys.isScoped(request));
    }),
  },
];
