/** Broken variants of Limits: the rate-limit headers and what counts against the budget. */
import { endpointOf, Keys, withHeaders, type Variant } from './kit.ts';

export const limitsVariants: Variant[] = [
  {
    id: 'no-retry-after',
    rule: 'Over the hourly limit the answer is 429 rate_limit_exceeded with a Retry-After header.',
    only: ['limits.'],
    destructive: true,
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        return response.status === 429 ? withHeaders(response, (h) => h.delete('retry-after')) : response;
      },
    }),
  },
  {
    id: 'export-requests-free',
    rule: 'Export requests (POST /v1/exports) count against the hourly rate limit.',
    only: ['limits.export-requests-count'],
    wrap(api) {
      const keys = new Keys(api);
      // The API's limiter is out of reach, so the variant gives back what each export request took:
      // from outside that is a server whose limiter skips them.
      const refunds = new Map<string, number>();
      return {
        async fetch(request) {
          const caller = await keys.of(request);
          const isExport = endpointOf(request).endpoint === 'exports' && request.method === 'POST';
          const response = await api.fetch(request);
          // Scoped keys have budgets of their own (and cannot export): only the account's is bent.
          if (!caller || caller.domain) return response;
          // Every export request the limiter let through took one; only the 429 with Retry-After was refused by it.
          if (isExport && !(response.status === 429 && response.headers.has('retry-after'))) refunds.set(caller.accountId, (refunds.get(caller.accountId) ?? 0) + 1);
          const refund = refunds.get(caller.accountId) ?? 0;
          if (refund === 0) return response;
          return withHeaders(response, (h) => {
            const remaining = Number(h.get('x-ratelimit-remaining'));
            const limit = Number(h.get('x-ratelimit-limit'));
            if (Number.isInteger(remaining) && Number.isInteger(limit)) h.set('x-ratelimit-remaining', String(Math.min(limit, remaining + refund)));
          });
        },
      };
    },
  },
  {
    id: 'no-ratelimit-remaining-on-errors',
    rule: 'X-RateLimit-Limit and X-RateLimit-Remaining are on every response, error responses included.',
    only: ['limits.', 'errors.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        return response.status >= 400 ? withHeaders(response, (h) => h.delete('x-ratelimit-remaining')) : response;
      },
    }),
  },
  {
    id: 'account-keys-separate-budgets',
    rule: 'The hourly budget is shared across all of the customer\'s keys: two account keys do not each get their own.',
    only: ['limits.account-keys-share-budget'],
    wrap(api) {
      const keys = new Keys(api);
      // From outside, a limiter per key: each account key's X-RateLimit-Remaining counts only its own requests.
      const used = new Map<string, number>();
      return {
        async fetch(request) {
          const caller = await keys.of(request);
          const response = await api.fetch(request);
          const key = request.headers.get('x-api-key');
          if (!caller || caller.domain || !key || !response.headers.has('x-ratelimit-remaining')) return response;
          used.set(key, (used.get(key) ?? 0) + 1);
          return withHeaders(response, (h) => h.set('x-ratelimit-remaining', String(Math.max(0, Number(h.get('x-ratelimit-limit')) - used.get(key)!))));
        },
      };
    },
  },
];
