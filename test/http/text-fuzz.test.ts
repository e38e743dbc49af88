import { describe, expect, it } from 'vitest';
import type { Reply } from '../support/client.ts';
import { encodeAny, expectEnvelope, fuzzer, withoutForbidden, type Fuzzed } from '../support/fuzz.ts';
import { inProcess, nodeHttp, serveWorld, type Client, type Target } from '../support/targets.ts';
import type { World } from '../support/world.ts';

/**
 * Fuzzing every text input a client controls: query parameters, path ids, export filters, download
 * links and API keys get values mixing control characters, unpaired surrogates, LIKE wildcards,
 * escapes, quotes and very long runs. Every answer must be the envelope with the right status (never a 5xx), a value
 * holding a refused character must be refused by name, and no value may select more than the same
 * request with those characters removed. Each fuzzed value holds at least one character no stored
 * value holds (`%`, `_`, `\`, a quote), so one that is accepted must select nothing of its own.
 */

const UNLIMITED = { rateLimits: { accountPerHour: 1e9, scopedKeyPerHour: 1e9 } };
const SEED = 20261123;

/** A query parameter to fuzz: where it is sent and a realistic value to build junk around. */
interface QueryKind {
  path: string;
  param: string;
  base: string;
}

const QUERY_KINDS: QueryKind[] = [
  { path: '/v1/people', param: 'domain', base: 'alpha.example' },
  { path: '/v1/people', param: 'client_ref', base: 'alpha' },
  { path: '/v1/people', param: 'last_seen_after', base: '2026-11-01' },
  { path: '/v1/people', param: 'hot_leads', base: 'true' },
  { path: '/v1/people', param: 'limit', base: '10' },
  { path: '/v1/people', param: 'cursor', base: 'eyJ0Ijo' },
  { path: '/v1/companies', param: 'domain', base: 'alpha.example' },
  { path: '/v1/companies', param: 'client_ref', base: 'alpha' },
  { path: '/v1/companies', param: 'last_seen_after', base: '2026-11-01T09:30:00Z' },
  { path: '/v1/people/per_001/events', param: 'event_type', base: 'page_view' },
  { path: '/v1/people/per_001/events', param: 'client_ref', base: 'alpha' },
  { path: '/v1/people/per_001/events', param: 'domain', base: 'shop.alpha.example' },
  { path: '/v1/stats', param: 'days', base: '30' },
  { path: '/v1/stats', param: 'client_ref', base: 'beta' },
  { path: '/v1/stats', param: 'domain', base: 'beta.example' },
];

/** Path ids to fuzz, around ids that exist. */
const PATH_KINDS = [
  { path: (id: string) => `/v1/people/${id}`, base: 'per_001' },
  { path: (id: string) => `/v1/people/${id}/events`, base: 'per_001' },
  { path: (id: string) => `/v1/companies/${id}`, base: 'co_01' },
  { path: (id: string) => `/v1/exports/${id}`, base: 'exp_000000000000000000000000' },
];

const ARRAY_FILTERS: [string, string][] = [
  ['industries', 'Software'],
  ['regions', 'EMEA'],
  ['seniority', 'Senior'],
  ['jobFunctions', 'Engineering'],
  ['domains', 'alpha.example'],
  ['pages', '/page/1'],
  ['campaigns', 'spring'],
  ['trafficTypes', 'organic'],
  ['adPlatforms', 'google'],
];
const ENUM_FILTERS: [string, string][] = [
  ['timeframe', '7d'],
  ['dateField', 'lastSeen'],
  ['crmStatus', 'in_crm'],
  ['sortBy', 'lastSeen'],
  ['sortOrder', 'asc'],
];

/** The rows a successful answer carries: a list's rows, or the stats' totals. */
function rowsOf(reply: Reply): number {
  if (Array.isArray(reply.body.data)) return reply.body.data.length;
  const { totalPeople, totalCompanies, recentEvents } = reply.body.data;
  return totalPeople + totalCompanies + recentEvents;
}

/** What the server reads from a query value sent with {@link encodeAny}: lone surrogates arrive as U+FFFD. */
function receivedInQuery(value: string): string {
  return new URLSearchParams(`v=${encodeAny(value)}`).get('v')!;
}

function fuzzSuite(target: Target, perKind: number): void {
  describe(`fuzzed text inputs (${target.name}, ${perKind} per kind)`, () => {
    let world: World;
    let client: Client;
    serveWorld(target, UNLIMITED, (w, c) => ((world = w), (client = c)));

    /** Starts an export; when accepted, waits for it and returns the finished job with the start reply. */
    async function exportOf(body: Record<string, unknown>): Promise<{ started: Reply; rowCount?: number }> {
      const started = await client.send('POST', '/v1/exports', world.accountKey, JSON.stringify(body), { 'content-type': 'application/json' });
      if (started.status !== 202) return { started };
      await world.api.exportsIdle();
      const job = await client.get(started.body.statusUrl, world.accountKey);
      expect(job.body.status, JSON.stringify(body).slice(0, 200)).toBe('complete');
      return { started, rowCount: job.body.rowCount };
    }

    it('refuses query values holding control characters by name, and no accepted value widens a list', async () => {
      const fuzz = fuzzer(SEED);
      let refused = 0;
      for (const kind of QUERY_KINDS) {
        for (let i = 0; i < perKind; i++) {
          const junk = fuzz.value(kind.base, { maxLength: 256 });
          const sent = receivedInQuery(junk.value);
          const forbidden = withoutForbidden(sent) !== sent;
          const what = `${kind.path}?${kind.param}=${JSON.stringify(junk.value.slice(0, 80))}`;
          const reply = await client.get(`${kind.path}?${kind.param}=${encodeAny(junk.value)}`, world.accountKey);
          if (reply.status === 200) {
            // Accepted: it selects nothing of its own, and no more than without the refused characters.
            expect(forbidden, what).toBe(false);
            expect(rowsOf(reply), what).toBe(0);
            continue;
          }
          if (kind.param === 'cursor') {
            expectEnvelope(reply, { 400: ['invalid_cursor'] }, what);
            continue;
          }
          const message = expectEnvelope(reply, { 400: ['validation_error'] }, what);
          expect(message, what).toContain(`Parameter ${kind.param} `);
          if (forbidden) {
            expect(message, what).toMatch(/must not contain control characters/);
            refused++;
          }
        }
      }
      // The generator does produce refused values: this suite is not passing vacuously.
      expect(refused).toBeGreaterThan(perKind);
    });

    it('answers fuzzed path ids with 404 (or 400 for broken percent-encoding), never a row', async () => {
      const fuzz = fuzzer(SEED + 1);
      for (const kind of PATH_KINDS) {
        for (let i = 0; i < perKind; i++) {
          const junk = fuzz.value(kind.base, { maxLength: 128 });
          const what = `${kind.path(JSON.stringify(junk.value.slice(0, 80)))}`;
          const reply = await client.get(kind.path(encodeAny(junk.value)), world.accountKey);
          expectEnvelope(reply, { 404: ['not_found'], 400: ['bad_request'] }, what);
          // Only ids that cannot be decoded are a 400; an id that decodes is looked up exactly.
          let decodes = true;
          try {
            decodeURIComponent(encodeAny(junk.value));
          } catch {
            decodes = false;
          }
          expect(reply.status, what).toBe(decodes ? 404 : 400);
        }
      }
    });

    it('answers fuzzed download-link parameters and API keys with 403 forbidden', async () => {
      const fuzz = fuzzer(SEED + 3);
      const signature = 'a'.repeat(64);
      for (let i = 0; i < perKind; i++) {
        const expires = fuzz.value('1900000000', { maxLength: 64 }).value;
        const junkSignature = fuzz.value(signature, { maxLength: 128 }).value;
        for (const query of [`expires=${encodeAny(expires)}&signature=${signature}`, `expires=1900000000&signature=${encodeAny(junkSignature)}`]) {
          const path = `/v1/exports/exp_000000000000000000000000/download?${query}`;
          expectEnvelope(await client.get(path), { 403: ['forbidden'] }, path.slice(0, 200));
        }
        // Header values cannot carry NUL, CR or LF at all; every other junk key is malformed.
        const key = fuzz.value(world.accountKey, { maxLength: 64 }).value.replace(/[\0\r\n]/g, '');
        const what = `X-API-Key ${JSON.stringify(key.slice(0, 80))}`;
        let reply: Reply;
        try {
          reply = await client.get('/v1/people', key);
        } catch (error) {
          // A value no HTTP client can send (a character past U+00FF in a header) fails before sending;
          // a request that was sent and failed (the server gone) must not pass for one.
          const refusedByClient = error instanceof TypeError && (error.message !== 'fetch failed' || (error.cause as { code?: string })?.code === 'UND_ERR_INVALID_ARG');
          if (!refusedByClient) throw error;
          continue;
        }
        expectEnvelope(reply, { 403: ['forbidden'], 401: ['unauthorized'] }, what);
      }
    });

    it('refuses export filters holding control characters by name, and no accepted filter widens an export', async () => {
      const fuzz = fuzzer(SEED + 2);
      const everyone = (await exportOf({})).rowCount!;
      const inEmea = (await exportOf({ regions: ['EMEA'] })).rowCount!;
      expect(everyone).toBeGreaterThan(0);
      expect(inEmea).toBeGreaterThan(0);
      let refused = 0;

      /** Checks one fuzzed body: refused by name when it holds a refused character, else at most `expected` rows. */
      async function check(key: string, body: Record<string, unknown>, junk: Fuzzed, expected: number): Promise<void> {
        const what = JSON.stringify(body).slice(0, 200);
        const { started, rowCount } = await exportOf(body);
        if (started.status === 202) {
          expect(junk.forbidden, what).toBe(false);
          expect(rowCount, what).toBe(expected);
          return;
        }
        const message = expectEnvelope(started, { 400: ['bad_request'] }, what);
        expect(message, what).toContain(key === '*' ? 'Unsupported export filter' : `Export filter ${key} `);
        // A value refused for a control character says so, unless another rule (its length) refused it first.
        if (/must not contain control characters/.test(message)) {
          expect(junk.forbidden, what).toBe(true);
          refused++;
        } else if (junk.forbidden && key !== '*') expect(message, what).toMatch(/at most \d+ characters/);
      }

      for (let i = 0; i < perKind; i++) {
        const junk = fuzz.value('First1');
        await check('search', { search: junk.value }, junk, 0);
      }
      for (let i = 0; i < perKind; i++) {
        const junk = fuzz.value('report');
        // The file name never selects: an accepted one exports everybody.
        await check('filename', { filename: junk.value }, junk, everyone);
      }
      for (const [key, base] of ARRAY_FILTERS) {
        for (let i = 0; i < perKind; i++) {
          const junk = fuzz.value(base, { maxLength: 256 });
          const item = junk.value.replaceAll(',', '');
          const fuzzed = { ...junk, value: item };
          // Alone, as an array or a comma list, a junk value selects nobody; beside EMEA in `regions`, EMEA's people.
          const form = fuzz.rng.int(0, 2);
          if (key === 'regions' && form === 2) await check(key, { regions: ['EMEA', item] }, fuzzed, inEmea);
          else await check(key, { [key]: form === 1 ? item : [item] }, fuzzed, 0);
        }
      }
      for (const [key, base] of ENUM_FILTERS) {
        for (let i = 0; i < perKind / 4; i++) {
          const junk = fuzz.value(base);
          await check(key, { [key]: junk.value }, junk, -1);
        }
      }
      for (let i = 0; i < perKind / 4; i++) {
        const junk = fuzz.value('search');
        await check('*', { [junk.value]: 'x' }, junk, -1);
      }
      expect(refused).toBeGreaterThan(perKind);
    });
  });
}

// The bulk in-process; a smaller pass over real HTTP, where the bytes go through Node's parser.
fuzzSuite(inProcess, 200);
fuzzSuite(nodeHttp, 30);
