import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api, type ApiOptions } from '../../adapters/node/index.ts';
import { VARIANTS, type FetchHandler } from './variants/index.ts';
import { parseCsv } from '../support/csv.ts';
import { PACED_EXPORTS, seedAccount } from './support.ts';

/**
 * Each broken variant really breaks its rule, independently of the harness: a probe of that one
 * rule holds against the real API and fails against the variant. So a variant the harness does
 * not catch is a gap in the harness, not a variant that breaks nothing. In process, on a manual
 * clock, so the 900 s link lifetime and the hourly limit cost nothing to reach.
 */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const SCOPED = 'acme-example.com';

interface World {
  api: Api;
  clock: ManualClock;
  accountKey: string;
  scopedKey: string;
}

async function createWorld(people: number, options: Pick<ApiOptions, 'rateLimits' | 'exports'> = {}): Promise<World> {
  const clock = new ManualClock(NOW);
  const api = await createApi({ database: ':memory:', clock, ...options, onError: (error) => console.error(error) });
  // The API's clock stands at NOW, so the data is anchored there.
  const { accountKey, scopedKeys } = await seedAccount(api, 'acc_demo', { people });
  const scopedKey = scopedKeys.find((k) => k.domain === SCOPED)?.key;
  if (!scopedKey) throw new Error(`the demo data has no site ${SCOPED}`);
  return { api, clock, accountKey, scopedKey };
}

/** Sends requests to a handler (the real API or a variant of it). */
class Client {
  constructor(
    readonly handler: FetchHandler,
    readonly world: World,
  ) {}

  send(path: string, init: { key?: string | null; method?: string; body?: unknown } = {}): Promise<Response> {
    const key = init.key === undefined ? this.world.accountKey : init.key;
    const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return this.handler.fetch(new Request(new URL(path, 'http://api.test'), { method: init.method ?? 'GET', headers, body }));
  }

  async json(path: string, init: Parameters<Client['send']>[1] = {}): Promise<{ status: number; headers: Headers; body: any }> {
    const res = await this.send(path, init);
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  /** Every page of a list, in order. */
  async pages(path: string, key?: string): Promise<any[]> {
    const pages = [];
    let cursor: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const { body } = await this.json(`${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
      pages.push(body);
      cursor = body.pagination?.nextCursor;
    } while (cursor && pages.length < 20);
    return pages;
  }

  async rows(path: string, key?: string): Promise<any[]> {
    return (await this.pages(path, key)).flatMap((p) => p.data);
  }

  /** Starts an export (body `{}` unless another is given), lets it finish, and polls it. */
  async finishedExport(filters: object = {}): Promise<any> {
    const { body } = await this.json('/v1/exports', { method: 'POST', body: filters });
    await this.world.api.exportsIdle();
    return (await this.json(`/v1/exports/${body.jobId}`)).body;
  }
}

type Probe = (c: Client) => Promise<boolean>;

const crossings = new WeakMap<World, Promise<{ id: string; domain: string; clientRef: string }>>();

/**
 * A person whose first page of events, read on the real API with the account key, holds events of
 * two clients (so a client filter on the events has something to drop), and one of those events'
 * domain and clientRef. Found once per world.
 */
function crossingPerson(world: World): Promise<{ id: string; domain: string; clientRef: string }> {
  let found = crossings.get(world);
  if (!found) {
    const real = new Client(world.api, world);
    found = (async () => {
      for (const person of await real.rows('/v1/people')) {
        const events: any[] = (await real.json(`/v1/people/${person.id}/events?limit=100`)).body.data;
        const first = events.find((e) => typeof e.clientRef === 'string');
        if (first && events.some((e) => e.clientRef !== first.clientRef)) return { id: person.id, domain: first.domain, clientRef: first.clientRef };
      }
      throw new Error('no person of the demo data has events of two clients on their first page');
    })();
    crossings.set(world, found);
  }
  return found;
}

/** The rows of a finished export's CSV, read with a real CSV parser. */
async function exportRows(c: Client, job: any): Promise<Record<string, string>[]> {
  return (await parseCsv(await (await c.send(job.downloadUrl, { key: null })).text())).rows;
}

/** X-RateLimit-Remaining of a response, as a number. */
const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));

/** What each variant's rule looks like from outside: true while the rule holds. */
const PROBES: Record<string, Probe> = {
  'missing-key-403': async (c) => (await c.send('/v1/people', { key: null })).status === 401,
  'bad-key-401': async (c) => (await c.send('/v1/people', { key: `vi_live_${'0'.repeat(40)}` })).status === 403,
  'error-without-status': async (c) => (await c.json('/v1/people/per_nobody')).body.error?.status === 404,
  'no-request-id-on-errors': async (c) => (await c.send('/v1/people/per_nobody')).headers.has('x-request-id'),
  'constant-request-id': async (c) => (await c.send('/v1/stats')).headers.get('x-request-id') !== (await c.send('/v1/stats')).headers.get('x-request-id'),
  'no-ratelimit-remaining-on-errors': async (c) => (await c.send('/v1/people/per_nobody')).headers.has('x-ratelimit-remaining'),
  'scoped-domain-widens': async (c) => (await c.json('/v1/people?domain=globex.example', { key: c.world.scopedKey })).body.data.length === 0,
  'scoped-people-leak': async (c) => {
    const inScope = new Set((await c.rows(`/v1/people?domain=${SCOPED}`)).map((p) => p.id));
    return (await c.rows('/v1/people', c.world.scopedKey)).every((p) => inScope.has(p.id));
  },
  'scoped-events-leak': async (c) => {
    for (const person of (await c.rows('/v1/people', c.world.scopedKey)).slice(0, 30)) {
      const events = await c.rows(`/v1/people/${person.id}/events`, c.world.scopedKey);
      if (events.some((e) => e.domain !== SCOPED && !e.domain.endsWith(`.${SCOPED}`))) return false;
    }
    return true;
  },
  'scoped-exact-site': async (c) => (await c.rows('/v1/people', c.world.scopedKey)).some((p) => p.domain === `shop.${SCOPED}`),
  'scoped-person-visible': async (c) => {
    const inScope = new Set((await c.rows(`/v1/people?domain=${SCOPED}`)).map((p) => p.id));
    const outside = (await c.rows('/v1/people')).find((p) => !inScope.has(p.id));
    return (await c.send(`/v1/people/${outside.id}`, { key: c.world.scopedKey })).status === 404;
  },
  'scoped-export-allowed': async (c) => (await c.json('/v1/exports', { method: 'POST', key: c.world.scopedKey, body: {} })).body.error?.code === 'scope_not_supported',
  'sort-order-accepted': async (c) => (await c.send('/v1/people?sort=lastSeen')).status === 400 && (await c.send('/v1/companies?order=asc')).status === 400,
  'limit-over-100-clamped': async (c) => (await c.send('/v1/people?limit=101')).status === 400,
  'invalid-cursor-ignored': async (c) => (await c.send('/v1/people?cursor=not-a-cursor')).status === 400,
  'cursor-ignores-filters': async (c) => {
    const cursor = (await c.json('/v1/people?limit=5')).body.pagination.nextCursor;
    const replayed = await c.json(`/v1/people?limit=5&hot_leads=true&cursor=${encodeURIComponent(cursor)}`);
    return replayed.status !== 200 || replayed.body.data.every((p: any) => p.isHotLead === true);
  },
  'row-repeated-across-pages': async (c) => {
    const ids = (await c.rows('/v1/people')).map((p) => p.id);
    return new Set(ids).size === ids.length;
  },
  'next-cursor-on-last-page': async (c) => (await c.pages('/v1/people')).every((page) => page.data.length > 0),
  'count-not-page-size': async (c) => (await c.pages('/v1/people')).every((page) => page.pagination.count === page.data.length),
  'domain-filter-ignored': async (c) => (await c.rows('/v1/people?domain=globex.example')).every((p) => /(^|\.)globex\.example$/.test(p.domain)),
  'client-ref-filter-ignored': async (c) => (await c.rows('/v1/people?client_ref=globex')).every((p) => p.clientRef === 'globex'),
  'event-type-ignored': async (c) => {
    const person = (await c.json('/v1/people?limit=1')).body.data[0];
    return (await c.rows(`/v1/people/${person.id}/events?event_type=click`)).every((e) => e.eventType === 'click');
  },
  'hot-leads-filter-ignored': async (c) => (await c.rows('/v1/people?hot_leads=true')).every((p) => p.isHotLead === true),
  'last-seen-after-ignored': async (c) => {
    const after = (await c.json('/v1/people?limit=20')).body.data[19].lastSeen;
    return (await c.rows(`/v1/people?last_seen_after=${after}`)).every((p) => p.lastSeen > after);
  },
  'malformed-last-seen-accepted': async (c) => (await c.send('/v1/people?last_seen_after=not-a-date')).status === 400 && (await c.send('/v1/companies?last_seen_after=2026-13-45')).status === 400,
  'malformed-hot-leads-accepted': async (c) => (await c.send('/v1/people?hot_leads=maybe')).status === 400,
  'events-domain-filter-ignored': async (c) => {
    const { id, domain } = await crossingPerson(c.world);
    const events: any[] = (await c.json(`/v1/people/${id}/events?limit=100&domain=${domain}`)).body.data;
    return events.length > 0 && events.every((e) => e.domain === domain || e.domain.endsWith(`.${domain}`));
  },
  'events-client-ref-filter-ignored': async (c) => {
    const { id, clientRef } = await crossingPerson(c.world);
    const events: any[] = (await c.json(`/v1/people/${id}/events?limit=100&client_ref=${encodeURIComponent(clientRef)}`)).body.data;
    return events.length > 0 && events.every((e) => e.clientRef === clientRef);
  },
  'scoped-client-ref-widens': async (c) => {
    const reply = await c.json('/v1/people?client_ref=globex', { key: c.world.scopedKey });
    return reply.status === 200 && reply.body.data.length === 0;
  },
  'export-requests-free': async (c) => {
    const before = remaining(await c.send('/v1/stats'));
    const started = await c.send('/v1/exports', { method: 'POST', body: {} });
    const after = remaining(await c.send('/v1/stats'));
    await c.world.api.exportsIdle();
    return started.status === 202 && after === before - 2;
  },
  'export-hot-filter-inverted': async (c) => {
    const rows = await exportRows(c, await c.finishedExport({ isHotLead: true }));
    return rows.length > 0 && rows.every((r) => r.isHotLead === 'true');
  },
  'client-ref-single-domain': async (c) => {
    // People of more than one of globex's registered domains come back for client_ref=globex.
    const sites = (await c.world.api.admin.listSites('acc_demo')).filter((s) => s.clientRef === 'globex').map((s) => s.domain);
    const filtered = await c.rows('/v1/people?client_ref=globex');
    return new Set(filtered.map((p) => p.domain).filter((d) => sites.includes(d))).size > 1;
  },
  'client-ref-single-domain-one-client': async (c) => {
    // People of both of acme-corp's registered domains come back for client_ref=acme-corp.
    const sites = (await c.world.api.admin.listSites('acc_demo')).filter((s) => s.clientRef === 'acme-corp').map((s) => s.domain);
    const filtered = await c.rows('/v1/people?client_ref=acme-corp');
    return sites.length > 1 && new Set(filtered.map((p) => p.domain).filter((d) => sites.includes(d))).size === sites.length;
  },
  'domain-filter-incomplete': async (c) => {
    // Pages of one row hold all there is to hold: a walk of them counts every match.
    let one = 0;
    let cursor: string | undefined;
    do {
      const { body } = await c.json(`/v1/people?domain=globex.example&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      one += body.data.length;
      cursor = body.pagination.nextCursor;
    } while (cursor && one < 500);
    return one > 1 && (await c.rows('/v1/people?domain=globex.example')).length === one;
  },
  'hot-leads-incomplete': async (c) => (await c.rows('/v1/people?hot_leads=true')).length === (await c.rows('/v1/people')).filter((p) => p.isHotLead).length,
  'last-seen-after-incomplete': async (c) => {
    const everyone = await c.rows('/v1/people');
    const after = everyone[Math.floor(everyone.length / 2)].lastSeen;
    return (await c.rows(`/v1/people?last_seen_after=${after}`)).length === everyone.filter((p) => Date.parse(p.lastSeen) > Date.parse(after)).length;
  },
  'event-type-incomplete': async (c) => {
    const { id } = await crossingPerson(c.world);
    const journey = await c.rows(`/v1/people/${id}/events`);
    const type = journey[0].eventType;
    return (await c.rows(`/v1/people/${id}/events?event_type=${type}`)).length === journey.filter((e) => e.eventType === type).length;
  },
  'export-file-misses-person': async (c) => {
    const ids = (await exportRows(c, await c.finishedExport())).map((r) => r.id);
    const everyone = await c.rows('/v1/people');
    return new Set(ids).size === everyone.length && everyone.every((p) => ids.includes(p.id));
  },
  'company-text-null': async (c) => (await c.rows('/v1/companies')).every((co) => typeof co.region === 'string' && typeof co.location === 'string'),
  'account-keys-separate-budgets': async (c) => {
    const second = (await c.world.api.admin.issueAccountKey('acc_demo', { label: 'probe' })).key;
    const first = remaining(await c.send('/v1/stats'));
    const then = remaining(await c.send('/v1/stats', { key: second }));
    return then === first - 1;
  },
  'filtered-export-row-count-off': async (c) => {
    const job = await c.finishedExport({ isHotLead: true });
    return (await exportRows(c, job)).length === job.rowCount;
  },
  'default-filename-undated': async (c) => {
    const download = await c.send((await c.finishedExport()).downloadUrl, { key: null });
    return /filename="service_people_\d{4}-\d{2}-\d{2}\.csv"/.test(download.headers.get('content-disposition') ?? '');
  },
  'resource-timestamps-offset': async (c) => (await c.json('/v1/people?limit=1')).body.data[0].lastSeen.endsWith('Z'),
  'export-timestamps-z': async (c) => (await c.finishedExport()).completedAt.endsWith('+00:00'),
  'export-unknown-key-accepted': async (c) => (await c.send('/v1/exports', { method: 'POST', body: { notAFilter: true } })).status === 400,
  'download-lifetime-not-900': async (c) => (await c.finishedExport()).downloadUrlExpiresInSeconds === 900,
  'export-row-count-off-by-one': async (c) => {
    const job = await c.finishedExport();
    const { rows } = await parseCsv(await (await c.send(job.downloadUrl, { key: null })).text());
    return rows.length === job.rowCount;
  },
  'download-signature-unchecked': async (c) => {
    const url = new URL((await c.finishedExport()).downloadUrl);
    const signature = url.searchParams.get('signature')!;
    url.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
    return (await c.send(url.href, { key: null })).status === 403;
  },
};

/** Probes that change the world: each gets its own small one. */
const ISOLATED: Record<string, { options?: Pick<ApiOptions, 'rateLimits' | 'exports'>; probe: (c: Client) => Promise<boolean> }> = {
  'no-retry-after': {
    options: { rateLimits: { accountPerHour: 3 } },
    probe: async (c) => {
      for (let i = 0; i < 3; i++) await c.send('/v1/stats');
      const over = await c.send('/v1/stats');
      return over.status === 429 && over.headers.has('retry-after');
    },
  },
  'fourth-export-queued': {
    options: { exports: PACED_EXPORTS },
    probe: async (c) => {
      const starts = [];
      for (let i = 0; i < 4; i++) starts.push(await c.json('/v1/exports', { method: 'POST', body: {} }));
      const fourth = starts[3]!;
      // A queued fourth starts once a slot frees: let it finish before the world closes.
      for (let i = 0; fourth.status === 202 && i < 100; i++) {
        await c.world.api.exportsIdle();
        if ((await c.json(`/v1/exports/${fourth.body.jobId}`)).body.status !== 'processing') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await c.world.api.exportsIdle();
      return fourth.status === 429 && fourth.body.error?.code === 'too_many_exports';
    },
  },
  'download-never-expires': {
    probe: async (c) => {
      const job = await c.finishedExport();
      const fresh = (await c.send(job.downloadUrl, { key: null })).status === 200;
      c.world.clock.advance(901);
      return fresh && (await c.send(job.downloadUrl, { key: null })).status === 403;
    },
  },
};

describe('every broken variant breaks its rule', () => {
  let shared: World;
  beforeAll(async () => {
    shared = await createWorld(150);
  }, 60_000);
  afterAll(() => shared.api.close());

  it('has a probe for every variant', () => {
    expect(VARIANTS.map((v) => v.id).filter((id) => !PROBES[id] && !ISOLATED[id])).toEqual([]);
  });

  it.each(VARIANTS.filter((v) => PROBES[v.id]).map((v) => [v.id, v] as const))('%s: the rule holds on the real API, not on the variant', async (id, variant) => {
    const probe = PROBES[id]!;
    expect(await probe(new Client(shared.api, shared)), 'real API').toBe(true);
    expect(await probe(new Client(variant.wrap(shared.api), shared)), 'variant').toBe(false);
  });

  it.each(VARIANTS.filter((v) => ISOLATED[v.id]).map((v) => [v.id, v] as const))('%s: the rule holds on the real API, not on the variant', async (id, variant) => {
    const { options, probe } = ISOLATED[id]!;
    for (const [who, wrap] of [['real API', (api: Api) => api], ['variant', variant.wrap]] as const) {
      const world = await createWorld(20, options);
      try {
        expect(await probe(new Client(wrap(world.api), world)), who).toBe(who === 'real API');
      } finally {
        await world.api.close();
      }
    }
  });
});
