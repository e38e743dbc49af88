import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import type { Check } from '../types.ts';
import { fullExport } from './export-support.ts';

const SECTION = 'Limits';
/** A cheap request that counts against the budget. */
const CHEAP = '/v1/people?limit=1';

/** The rate-limit headers of a reply as integers, or a failure. */
function rate(t: CheckContext, reply: Reply, what: string): { limit: number; remaining: number } {
  const limit = reply.headers.get('x-ratelimit-limit');
  const remaining = reply.headers.get('x-ratelimit-remaining');
  t.assert(limit !== null, `${what} (${reply.status}): no X-RateLimit-Limit header`);
  t.assert(remaining !== null, `${what} (${reply.status}): no X-RateLimit-Remaining header`);
  t.assert(/^\d+$/.test(limit.trim()), `${what}: X-RateLimit-Limit is ${JSON.stringify(limit)}, not an integer`);
  t.assert(/^\d+$/.test(remaining.trim()), `${what}: X-RateLimit-Remaining is ${JSON.stringify(remaining)}, not an integer`);
  const out = { limit: Number(limit), remaining: Number(remaining) };
  t.assert(out.limit > 0, `${what}: X-RateLimit-Limit is ${out.limit}`);
  t.assert(out.remaining <= out.limit, `${what}: X-RateLimit-Remaining ${out.remaining} exceeds X-RateLimit-Limit ${out.limit}`);
  return out;
}

export const limitsChecks: Check[] = [
  {
    id: 'limits.headers-on-every-response',
    section: SECTION,
    title: 'Responses to a key (200, 400, 404) carry X-RateLimit-Limit and X-RateLimit-Remaining as integers',
    async run(t: CheckContext) {
      const cases: [string, number][] = [
        [CHEAP, 200],
        ['/v1/stats', 200],
        ['/v1/people?limit=0', 400],
        ['/v1/people/harness-no-such-person', 404],
        ['/v1/no-such-endpoint', 404],
      ];
      for (const [path, status] of cases) {
        const reply = await t.get(path);
        t.status(reply, status, `GET ${path}`);
        rate(t, reply, `GET ${path}`);
      }
      const scoped = t.config.scopedKeys[0];
      if (scoped) {
        const reply = await t.get(CHEAP, { key: scoped.key });
        t.status(reply, 200, `GET ${CHEAP} with the ${scoped.domain} key`);
        rate(t, reply, `GET ${CHEAP} with the ${scoped.domain} key`);
      }
    },
  },
  {
    id: 'limits.account-hourly-limit',
    section: SECTION,
    title: 'The account key\'s hourly limit is 1,000 requests',
    async run(t: CheckContext) {
      const reply = await t.get(CHEAP);
      t.status(reply, 200, `GET ${CHEAP}`);
      const { limit } = rate(t, reply, `GET ${CHEAP}`);
      t.assert(limit === 1000, `X-RateLimit-Limit is ${limit}, not the 1,000 requests per hour the spec states`);
    },
  },
  {
    id: 'limits.remaining-decrements',
    section: SECTION,
    title: 'X-RateLimit-Remaining goes down by one with each request of the same key',
    async run(t: CheckContext) {
      const seen: number[] = [];
      let limit = 0;
      for (let i = 0; i < 3; i++) {
        const reply = await t.get(CHEAP);
        t.status(reply, 200, `GET ${CHEAP}`);
        const r = rate(t, reply, `GET ${CHEAP}`);
        if (i > 0) t.assert(r.limit === limit, `X-RateLimit-Limit changed from ${limit} to ${r.limit} between two requests`);
        limit = r.limit;
        seen.push(r.remaining);
      }
      if (seen[0]! < 2) t.skip(`only ${seen[0]} requests remain this hour`);
      t.assert(seen[1] === seen[0]! - 1 && seen[2] === seen[1]! - 1, `X-RateLimit-Remaining went ${seen.join(' → ')} over three requests, not down by one each time`);
    },
  },
  {
    id: 'limits.scoped-budget-separate',
    section: SECTION,
    title: 'A domain-scoped key\'s requests do not count against the account\'s budget',
    flags: ['scoped'],
    async run(t: CheckContext) {
      const { domain, key } = t.scoped();
      const before = rate(t, await t.get(CHEAP), `GET ${CHEAP}`);
      for (let i = 0; i < 3; i++) {
        const reply = await t.get(CHEAP, { key });
        t.status(reply, 200, `GET ${CHEAP} with the ${domain} key`);
      }
      const after = rate(t, await t.get(CHEAP), `GET ${CHEAP}`);
      if (before.remaining < 2) t.skip(`only ${before.remaining} requests remain this hour`);
      t.assert(after.remaining === before.remaining - 1, `the account's X-RateLimit-Remaining went ${before.remaining} → ${after.remaining} across one account request and three with the ${domain} key`);
    },
  },
  {
    id: 'limits.export-requests-count',
    section: SECTION,
    title: 'An export request (POST /v1/exports) counts against the hourly limit: X-RateLimit-Remaining goes down by one across it, as for a read',
    flags: ['exports'],
    async run(t: CheckContext) {
      // The shared export of everything is bracketed by two GET /v1/stats with the account key, so
      // its start and polls are the only requests between them: no export is started for this check.
      const job = await fullExport(t);
      const before = rate(t, job.statsBefore, 'GET /v1/stats just before POST /v1/exports');
      const start = rate(t, job.start, 'POST /v1/exports');
      const after = rate(t, job.statsAfter, 'GET /v1/stats once the export completed');
      const polls = job.polls.length;
      if (after.remaining > before.remaining) t.notApplicable(`X-RateLimit-Remaining rose from ${before.remaining} to ${after.remaining} while the export ran: the hourly window turned over`);
      if (before.remaining < polls + 3) t.skip(`only ${before.remaining} requests remained this hour when the export started`);
      t.assert(start.remaining === before.remaining - 1, `X-RateLimit-Remaining went ${before.remaining} → ${start.remaining} from the GET /v1/stats just before to the POST /v1/exports: the export request did not count as one request`);
      const expected = before.remaining - polls - 2;
      t.assert(after.remaining === expected, `X-RateLimit-Remaining went ${before.remaining} → ${after.remaining} across the POST /v1/exports, ${polls} poll(s) and one GET /v1/stats; with each counted it would be ${expected}`);
    },
  },
  {
    id: 'limits.account-keys-share-budget',
    section: SECTION,
    title: 'Two account keys of one customer share its hourly budget: a request with either lowers X-RateLimit-Remaining for both',
    cost: 3,
    async run(t: CheckContext) {
      const [second] = t.config.accountKeys.filter((k) => k !== t.accountKey);
      if (!second) t.notApplicable('only one account key was given; list a second key of the same account under accountKeys in the --keys file');
      // One request each, alternating: with a shared budget each answer is one below the one before.
      const seen: number[] = [];
      for (const [key, who] of [[t.accountKey, 'the first account key'], [second, 'the second account key'], [t.accountKey, 'the first account key']] as const) {
        const reply = await t.get(CHEAP, { key });
        t.status(reply, 200, `GET ${CHEAP} with ${who}`);
        seen.push(rate(t, reply, `GET ${CHEAP} with ${who}`).remaining);
      }
      const [a, b, c] = seen as [number, number, number];
      t.assert(b < a && c < b, `X-RateLimit-Remaining went ${a} (first key) → ${b} (second key) → ${c} (first key): the keys do not draw on one budget, though the spec shares it across all of the customer's keys`);
    },
  },
  {
    id: 'limits.exhaust-429',
    section: SECTION,
    title: 'Past the hourly limit a key gets 429 rate_limit_exceeded with Retry-After and X-RateLimit-Remaining 0',
    flags: ['destructive', 'budget'],
    async run(t: CheckContext) {
      const first = await t.get(CHEAP);
      if (first.status === 429) t.skip(`GET ${CHEAP} answered 429 before this check spent anything: the budget was already spent; run it on a fresh hour`);
      t.status(first, 200, `GET ${CHEAP}`);
      const { limit, remaining: firstRemaining } = rate(t, first, `GET ${CHEAP}`);
      let previous = firstRemaining;
      let reply: Reply | undefined;
      for (let i = 0; i < limit + 5; i++) {
        const r = await t.get(CHEAP);
        if (r.status === 429) {
          reply = r;
          break;
        }
        t.assert(previous > 0 || r.status !== 200, `GET ${CHEAP} answered 200 after X-RateLimit-Remaining had reached 0`);
        t.status(r, 200, `GET ${CHEAP} (request ${i + 2} of the budget)`);
        const remaining = rate(t, r, `GET ${CHEAP}`).remaining;
        t.assert(remaining < previous, `X-RateLimit-Remaining went ${previous} → ${remaining}`);
        previous = remaining;
      }
      if (!reply) t.fail(`${limit + 6} requests within the hour, none answered 429 though X-RateLimit-Limit is ${limit}`);
      t.error(reply, 429, 'rate_limit_exceeded', `GET ${CHEAP} past the limit`);
      t.assert(previous === 0, `the last allowed request reported X-RateLimit-Remaining ${previous}, not 0`);
      const retry = reply.headers.get('retry-after');
      t.assert(retry !== null, 'the 429 has no Retry-After header');
      t.assert(/^\d+$/.test(retry.trim()) && Number(retry) >= 1 && Number(retry) <= 3600, `Retry-After is ${JSON.stringify(retry)}, not a whole number of seconds from 1 to 3600`);
      t.assert(reply.headers.get('x-ratelimit-remaining')?.trim() === '0', `the 429 carries X-RateLimit-Remaining ${JSON.stringify(reply.headers.get('x-ratelimit-remaining'))}, not 0`);
      t.assert(!!reply.headers.get('x-request-id'), 'the 429 has no X-Request-Id');
      // Still refused: the window does not reopen on its own.
      t.error(await t.get('/v1/stats'), 429, 'rate_limit_exceeded', 'GET /v1/stats right after the 429');
    },
  },
  {
    id: 'limits.scoped-key-own-budget',
    section: SECTION,
    title: 'A domain-scoped key still reads once the account\'s budget is spent: it has its own hourly limit',
    flags: ['destructive', 'budget', 'scoped'],
    async run(t: CheckContext) {
      const { domain, key } = t.scoped();
      const account = await t.get(CHEAP);
      if (account.status !== 429) t.notApplicable(`the account's budget is not spent (GET ${CHEAP} answered ${account.status}); limits.exhaust-429 spends it`);
      const reply = await t.get(CHEAP, { key });
      t.status(reply, 200, `GET ${CHEAP} with the ${domain} key after the account's budget is spent`);
      rate(t, reply, `GET ${CHEAP} with the ${domain} key`);
    },
  },
];
