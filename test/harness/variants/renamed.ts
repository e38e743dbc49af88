/**
 * A valid implementation that made other choices where the spec leaves them open: its
 * lastSeen-after filter is `since` and its hot-leads filter `hot_only`, and it ignores query
 * parameters it does not know (the spec does not say to refuse them). Not a broken variant: the
 * harness must pass it without a profile, reading the names from its OpenAPI document when it
 * serves one and probing for them when it does not.
 */
import type { Api } from '../../../core/index.ts';
import { HOT_LEADS, LAST_SEEN_AFTER } from '../../../core/handlers/filters.ts';
import { endpointOf, mapJson, withQuery, type FetchHandler } from './kit.ts';

const RENAMED: Record<string, string> = { since: LAST_SEEN_AFTER, hot_only: HOT_LEADS };
/** What each list endpoint knows; the reserved `sort` and `order` stay refused, as the spec says. */
const KNOWN: Record<string, string[]> = {
  people: ['limit', 'cursor', 'domain', 'client_ref', 'since', 'hot_only', 'sort', 'order'],
  companies: ['limit', 'cursor', 'since', 'sort', 'order'],
  events: ['limit', 'cursor', 'domain', 'client_ref', 'event_type', 'sort', 'order'],
};

/**
 * Our server with the filters renamed; `openapi: 'none'` serves no OpenAPI document, `'renamed'`
 * one with the new names. `ignoreHotLeads` makes it broken after all: `hot_only` is then dropped.
 */
export function renamedFilters(api: Api, { openapi, ignoreHotLeads = false }: { openapi: 'none' | 'renamed'; ignoreHotLeads?: boolean }): FetchHandler {
  return {
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname.endsWith('/v1/openapi.json')) {
        if (openapi === 'none') return new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such endpoint', status: 404 } }), { status: 404, headers: { 'content-type': 'application/json' } });
        return mapJson(await api.fetch(request), (doc) => JSON.parse(JSON.stringify(doc).replaceAll(`"${LAST_SEEN_AFTER}"`, '"since"').replaceAll(`"${HOT_LEADS}"`, '"hot_only"')));
      }
      const known = KNOWN[endpointOf(request).endpoint];
      if (!known) return api.fetch(request);
      return api.fetch(
        await withQuery(request, (params) => {
          for (const name of [...new Set(params.keys())]) {
            const values = params.getAll(name);
            params.delete(name);
            if (!known.includes(name)) continue; // ignored, as this implementation ignores what it does not know
            if (ignoreHotLeads && name === 'hot_only') continue;
            for (const value of values) params.append(RENAMED[name] ?? name, value);
          }
        }),
      );
    },
  };
}
