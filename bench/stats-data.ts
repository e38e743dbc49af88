/**
 * The stats and companies benchmark's database: demo people, sites and companies (100,000 people
 * by default) and many small events (10,000,000 by default), built once per seed and size under
 * bench/.cache through the admin surface, as every other benchmark database is. Events carry only
 * the fields every event has, so ten million of them load in minutes and fit in a few gigabytes;
 * stats count them and never read their bodies.
 */
import { toSeconds } from '../core/admin/inputs.ts';
import type { EventInput, PersonInput } from '../core/index.ts';
import { deriveDemoKey } from '../scripts/demo-keys.ts';
import { generateDemo } from '../scripts/demo/generate.ts';
import { loadDemo } from '../scripts/demo/seed.ts';
import { createRng, mixSeed } from '../scripts/demo/rng.ts';
import { BENCH_ACCOUNT, BENCH_ANCHOR, cachedDatabase, type BuildOptions } from './data.ts';
import { planEvents } from './journey-events.ts';

/** Bump when the data changes shape, so old cached files are not reused. */
const STATS_DATA_VERSION = 1;
/** Events per `admin.loadEvents` call: one transaction each. */
const EVENT_BATCH = 10_000;
const TYPES = ['page_view', 'page_view', 'page_view', 'click', 'scroll', 'form_submission'];

/** Sizes of the stats database. */
export interface StatsDataOptions extends BuildOptions {
  seed: number;
  people: number;
  events: number;
}

/** The issue's sizes. */
export const DEFAULT_STATS_DATA = { people: 100_000, events: 10_000_000 };
/** What `npm test`'s tiny bench run builds in a few seconds. */
export const TINY_STATS_DATA = { people: 2_000, events: 20_000 };

/** A ready stats database and its keys. */
export interface StatsData {
  path: string;
  people: number;
  events: number;
  accountKey: string;
  /** Domain-scoped keys: one over a domain and its subdomain (two sites), one over a single site. */
  scopedKeys: { domain: string; key: string; sites: number }[];
}

/** The scoped keys the suite reads with: acme-example.com covers shop.acme-example.com too. */
const SCOPED = [
  { domain: 'acme-example.com', sites: 2 },
  { domain: 'initech.test', sites: 1 },
];

/** Builds the stats database, or reuses the one already built for the same seed and sizes. */
export async function statsDatabase(options: StatsDataOptions): Promise<StatsData> {
  const { seed, people, events } = options;
  for (const [name, n] of [['people', people], ['events', events]] as const) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
  }
  const accountKey = deriveDemoKey(seed, 'stats bench account');
  const scopedKeys = SCOPED.map((s) => ({ ...s, key: deriveDemoKey(seed, `stats bench site ${s.domain}`) }));
  const file = `stats-v${STATS_DATA_VERSION}-s${seed}-p${people}-e${events}.sqlite`;
  const label = `Stats data (${people.toLocaleString('en')} people, ${events.toLocaleString('en')} events)`;
  const path = await cachedDatabase(file, label, options, async (admin, onProgress) => {
    // Generated only when building: 100,000 demo people take a while to make.
    const demo = generateDemo({ seed, people, anchor: BENCH_ANCHOR });
    const counts = planEvents(seed, demo.people, events, []).counts;
    await loadDemo(admin, BENCH_ACCOUNT, { ...demo, events: () => smallEvents(seed, demo.people, counts), eventCount: events }, onProgress);
    await admin.issueAccountKey(BENCH_ACCOUNT, { label: 'stats bench account key', value: accountKey });
    for (const s of scopedKeys) await admin.issueScopedKey(BENCH_ACCOUNT, s.domain, { label: 'stats bench scoped key', value: s.key });
  });
  return { path, people, events, accountKey, scopedKeys };
}

/** `counts[i]` events for person `i`, each on one of their sites at a second inside that visit's window. */
function* smallEvents(seed: number, people: PersonInput[], counts: number[]): Generator<EventInput[]> {
  let batch: EventInput[] = [];
  // Ids in loading order, so the account's unique index on them grows at its end.
  let seq = 0;
  for (const [i, person] of people.entries()) {
    const n = counts[i]!;
    if (n === 0) continue;
    const rng = createRng(mixSeed(seed, 91, i));
    const visits = person.visits.map((v) => ({ domain: String(v.domain), first: toSeconds(v.firstSeen, 'firstSeen'), last: toSeconds(v.lastSeen, 'lastSeen') }));
    for (let k = 0; k < n; k++) {
      const visit = visits[k % visits.length]!;
      const ts = rng.int(visit.first, visit.last);
      batch.push({
        eventId: `e${(seq++).toString(36).padStart(5, '0')}`,
        personId: person.id,
        sessionId: `s${i.toString(36)}`,
        eventType: TYPES[k % TYPES.length]!,
        timestamp: ts * 1000,
        // A few pages per person, so the person's pages index stays small.
        url: `https://${visit.domain}/p${k % 8}`,
        domain: visit.domain,
      });
      if (batch.length === EVENT_BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}
