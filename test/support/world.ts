import { AdjustableClock, createApi, ManualClock, type Api, type ApiOptions, type EventInput, type PersonInput, type TimeInput } from '../../adapters/node/index.ts';
import type { Backend } from './backends.ts';

/** The sites of account A: clients `alpha` (a domain and its subdomain), a look-alike, `beta`, and one without a clientRef. */
export const SITES = [
  { domain: 'alpha.example', clientRef: 'alpha' },
  { domain: 'shop.alpha.example', clientRef: 'alpha' },
  { domain: 'badalpha.example', clientRef: 'bad' },
  { domain: 'beta.example', clientRef: 'beta' },
  { domain: 'gamma.example', clientRef: null },
] as const;

/** "Now" in the world, and the base all its times hang from. */
export const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface World {
  api: Api;
  clock: ManualClock;
  /** The clock the API's leases run on: it stands still at real time until a test moves it (the API's `clock` moves none). */
  leaseClock: ManualClock;
  accountKey: string;
  secondAccountKey: string;
  scopedKeys: Record<string, string>;
  otherAccountKey: string;
  /** Everything loaded into account A, for computing expected answers. */
  people: PersonInput[];
  events: EventInput[];
  /** The person with a long journey. */
  travellerId: string;
  /** Stops the API and drops the world's database (a Postgres world's schema). */
  close(): Promise<void>;
}

/**
 * A small account with known facts: 90 people spread over the sites (some on several, some
 * sharing a lastSeen to exercise the tie-breaker), a third of them hot, 12 companies, and one
 * person with a 260-event journey across three sites with repeated timestamps.
 */
export async function createWorld(options: Pick<ApiOptions, 'rateLimits' | 'exports' | 'admin' | 'faults'> & { database?: string; adjustableClock?: boolean; backend?: Backend } = {}): Promise<World> {
  // A backend opens the world a database of its own (a fresh schema on Postgres).
  const opened = options.backend ? await options.backend.open() : undefined;
  const clock = new ManualClock(NOW);
  // An adjustable clock over the manual one: admin requests move and reset it, tests still move its base.
  const apiClock = options.adjustableClock ? new AdjustableClock(clock) : clock;
  const leaseClock = new ManualClock(Date.now());
  const { rateLimits, exports, admin: adminHttp, faults } = options;
  const api = await createApi({ database: opened?.database ?? options.database ?? ':memory:', clock: apiClock, leaseClock, rateLimits, exports, admin: adminHttp, faults, onError: () => undefined });
  const { admin } = api;
  await admin.createAccount({ id: 'acc_a', name: 'Partner A' });
  for (const site of SITES) await admin.registerSite('acc_a', site);
  await admin.loadCompanies(
    'acc_a',
    Array.from({ length: 12 }, (_, i) => ({
      id: `co_${String(i).padStart(2, '0')}`,
      name: `Company ${i}`,
      domain: `company${i}.example`,
      standardizedIndustry: ['Software', 'Retail', 'Healthcare'][i % 3],
      location: 'Berlin, DE',
      region: 'EMEA',
      employeeCount: 10 * (i + 1),
      isHotCompany: i % 4 === 0,
      trafficType: 'organic',
    })),
  );

  const people: PersonInput[] = [];
  for (let i = 0; i < 90; i++) {
    const primary = SITES[i % SITES.length]!.domain;
    // Every seventh person shares a lastSeen with the one before: ties the id must break.
    const lastSeen = NOW - (i - (i % 7 === 0 && i > 0 ? 1 : 0)) * 3_600_000;
    const visits = [{ domain: primary, visitCount: 1 + (i % 5), firstSeen: iso(lastSeen - 10 * DAY), lastSeen: iso(lastSeen) }];
    if (i % 6 === 1) visits.push({ domain: 'beta.example', visitCount: 2, firstSeen: iso(lastSeen - 20 * DAY), lastSeen: iso(lastSeen - DAY) });
    people.push({
      id: `per_${String(i).padStart(3, '0')}`,
      email: `person${i}@mail.example`,
      firstName: `First${i}`,
      lastName: i % 9 === 0 ? null : `Last${i}`,
      title: i % 4 === 0 ? null : 'Engineer',
      company: i % 8 === 0 ? null : `Company ${i % 12}`,
      companyId: i % 8 === 0 ? null : `co_${String(i % 12).padStart(2, '0')}`,
      isHotLead: i % 3 === 0,
      region: 'EMEA',
      visits: primary === 'beta.example' ? visits.slice(0, 1) : visits,
    });
  }
  await admin.loadPeople('acc_a', people);

  const travellerId = 'per_001'; // seen on shop.alpha.example and beta.example
  const events: EventInput[] = [];
  const journeySites = ['shop.alpha.example', 'beta.example', 'shop.alpha.example'];
  const types = ['page_view', 'click', 'scroll', 'form_submission', 'video_play'];
  for (let i = 0; i < 260; i++) {
    const domain = journeySites[i % 3]!;
    const type = types[i % types.length]!;
    // Pairs of events share a timestamp, so the eventId tie-breaker matters.
    const ts = NOW - 3 * DAY + Math.floor(i / 2) * 60_000;
    const event: EventInput = { eventId: `evt_${String(i).padStart(4, '0')}`, personId: travellerId, sessionId: `ses_${Math.floor(i / 20)}`, eventType: type, timestamp: iso(ts), url: `https://${domain}/page/${i % 10}`, domain };
    if (type === 'page_view') event.pageTitle = `Page ${i % 10}`;
    if (type === 'click') Object.assign(event, { clickElement: 'button#cta', clickHref: '/signup' });
    if (type === 'scroll') Object.assign(event, { pageTitle: `Page ${i % 10}`, scrollPercentage: (i * 7) % 101 });
    if (type === 'form_submission') Object.assign(event, { pageTitle: 'Contact', formId: 'contact-us' });
    if (type === 'video_play') Object.assign(event, { videoId: `vid_${i % 3}`, durationSeconds: 30 + i });
    events.push(event);
  }
  // A few events for other people, including one on the look-alike domain.
  events.push({ eventId: 'evt_x1', personId: 'per_002', sessionId: 'ses_x', eventType: 'page_view', timestamp: iso(NOW - DAY), url: 'https://badalpha.example/', domain: 'badalpha.example', pageTitle: 'Home' });
  events.push({ eventId: 'evt_x2', personId: 'per_000', sessionId: 'ses_y', eventType: 'page_view', timestamp: iso(NOW - 40 * DAY), url: 'https://alpha.example/', domain: 'alpha.example', pageTitle: 'Home' });
  await admin.loadEvents('acc_a', events);

  const accountKey = (await admin.issueAccountKey('acc_a')).key;
  const secondAccountKey = (await admin.issueAccountKey('acc_a', { label: 'second' })).key;
  const scopedKeys: Record<string, string> = {};
  for (const site of SITES) scopedKeys[site.domain] = (await admin.issueScopedKey('acc_a', site.domain)).key;

  await admin.createAccount({ id: 'acc_b', name: 'Partner B' });
  await admin.registerSite('acc_b', { domain: 'alpha.example', clientRef: 'alpha' });
  await admin.loadPeople('acc_b', [{ id: 'per_b_only', visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW - DAY), lastSeen: iso(NOW) }] }]);
  const otherAccountKey = (await admin.issueAccountKey('acc_b')).key;

  const close = async () => (await api.close(), await opened?.drop());
  return { api, clock, leaseClock, accountKey, secondAccountKey, scopedKeys, otherAccountKey, people, events, travellerId, close };
}

/** The sites a person was seen on. */
export function siteDomainsOf(person: PersonInput): string[] {
  return person.visits.map((v) => v.domain);
}

/** A person's visit to one site, if any. */
export function visitOn(person: PersonInput, domain: string) {
  return person.visits.find((v) => v.domain === domain);
}

/** A loaded time in whole epoch seconds, as the API keeps it. */
export const seconds = (t: TimeInput): number => Math.floor((t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t)) / 1000);
