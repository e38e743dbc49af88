/** Broken variants of Limits: the rate-limit headers. */
import { withHeaders, type Variant } from './kit.ts';

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
];
