/** Broken variants of Pagination and ordering on the three list endpoints. */
import { isList, mapJson, readJson, withQuery, type Variant } from './kit.ts';

/** The request's filters: every query parameter but `limit` and `cursor`, in a stable order. */
function filtersOf(url: URL): [string, string][] {
  return [...url.searchParams].filter(([name]) => name !== 'limit' && name !== 'cursor').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export const pagingVariants: Variant[] = [
  {
    id: 'sort-order-accepted',
    rule: 'The query parameters sort and order are reserved: sending either gives 400 bad_request.',
    only: ['paging.', 'errors.'],
    wrap: (api) => ({
      async fetch(request) {
        const params = new URL(request.url).searchParams;
        if (!params.has('sort') && !params.has('order')) return api.fetch(request);
        return api.fetch(await withQuery(request, (p) => (p.delete('sort'), p.delete('order'))));
      },
    }),
  },
  {
    id: 'limit-over-100-clamped',
    rule: 'limit is an integer from 1 to 100; 101 is refused, not clamped.',
    only: ['paging.', 'errors.'],
    wrap: (api) => ({
      async fetch(request) {
        const limit = new URL(request.url).searchParams.get('limit');
        if (limit === null || !/^\d+$/.test(limit) || Number(limit) <= 100) return api.fetch(request);
        return api.fetch(await withQuery(request, (p) => p.set('limit', '100')));
      },
    }),
  },
  {
    id: 'invalid-cursor-ignored',
    rule: 'An invalid or expired cursor gives 400 invalid_cursor.',
    only: ['paging.', 'errors.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (response.status !== 400 || (await readJson(response))?.body?.error?.code !== 'invalid_cursor') return response;
        return api.fetch(await withQuery(request, (p) => p.delete('cursor')));
      },
    }),
  },
  {
    id: 'cursor-ignores-filters',
    rule: 'A cursor belongs to the query that produced it: replayed with other filters it is not answered as the original query.',
    only: ['paging.'],
    wrap(api) {
      const origins = new Map<string, [string, string][]>();
      return {
        async fetch(request) {
          if (!isList(request)) return api.fetch(request);
          const url = new URL(request.url);
          const cursor = url.searchParams.get('cursor');
          const origin = cursor === null ? undefined : origins.get(cursor);
          let sent = request;
          if (origin && JSON.stringify(origin) !== JSON.stringify(filtersOf(url))) {
            // Answer as if the filters of the page that handed out the cursor had been sent.
            sent = await withQuery(request, (p) => {
              for (const name of [...p.keys()]) if (name !== 'limit' && name !== 'cursor') p.delete(name);
              for (const [name, value] of origin) p.append(name, value);
            });
          }
          const response = await api.fetch(sent);
          const next = (await readJson(response))?.body?.pagination?.nextCursor;
          if (typeof next === 'string') origins.set(next, filtersOf(new URL(sent.url)));
          return response;
        },
      };
    },
  },
  {
    id: 'row-repeated-across-pages',
    rule: 'Following nextCursor continues after the last row of the previous page: no row appears on two pages.',
    only: ['paging.'],
    wrap(api) {
      const lastRows = new Map<string, unknown>();
      return {
        async fetch(request) {
          if (!isList(request)) return api.fetch(request);
          const params = new URL(request.url).searchParams;
          const cursor = params.get('cursor');
          const limit = Number(params.get('limit'));
          const repeat = cursor !== null && lastRows.has(cursor) && Number.isInteger(limit) && limit >= 2 && limit <= 100;
          // Ask for one row fewer and put the previous page's last row in front: the page keeps its size.
          const response = await api.fetch(repeat ? await withQuery(request, (p) => p.set('limit', String(limit - 1))) : request);
          return mapJson(response, (body) => {
            if (!Array.isArray(body?.data) || !body.pagination) return;
            if (repeat) {
              body.data.unshift(lastRows.get(cursor!));
              body.pagination.limit = limit;
              body.pagination.count = body.data.length;
            }
            if (typeof body.pagination.nextCursor === 'string' && body.data.length > 0) lastRows.set(body.pagination.nextCursor, body.data.at(-1));
          });
        },
      };
    },
  },
  {
    id: 'next-cursor-on-last-page',
    rule: 'nextCursor is absent on the last page.',
    only: ['paging.'],
    wrap(api) {
      const dangling = new Set<string>();
      return {
        async fetch(request) {
          if (!isList(request)) return api.fetch(request);
          const cursor = new URL(request.url).searchParams.get('cursor');
          if (cursor !== null && dangling.has(cursor)) {
            // A cursor past the end: the same request without it, emptied.
            const response = await api.fetch(await withQuery(request, (p) => p.delete('cursor')));
            return mapJson(response, (body) => {
              if (!Array.isArray(body?.data) || !body.pagination) return;
              body.data = [];
              body.pagination = { limit: body.pagination.limit, count: 0 };
            });
          }
          const response = await api.fetch(request);
          return mapJson(response, (body) => {
            if (!Array.isArray(body?.data) || !body.pagination || body.pagination.nextCursor !== undefined) return;
            const next = `end${crypto.randomUUID().replace(/-/g, '')}`;
            dangling.add(next);
            body.pagination.nextCursor = next;
          });
        },
      };
    },
  },
  {
    id: 'count-not-page-size',
    rule: 'pagination.count is the number of records in this page.',
    only: ['paging.', 'resources.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (!isList(request) || response.status !== 200) return response;
        return mapJson(response, (body) => {
          if (Array.isArray(body?.data) && body.pagination) body.pagination.count = body.data.length + 1;
        });
      },
    }),
  },
];
