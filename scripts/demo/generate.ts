import { base, en, Faker } from '@faker-js/faker';
import type { CompanyInput, EventInput, PersonInput } from '../../core/index.ts';
import { CATALOG_SITES } from './catalog.ts';
import { companyCount, generateCompanies } from './companies.ts';
import { buildContent } from './content.ts';
import { visitEvents } from './journeys.ts';
import { generatePeople } from './people.ts';
import { createRng, mixSeed } from './rng.ts';
import { planVisits } from './visits.ts';

export interface DemoOptions {
  seed: number;
  people: number;
  /** Epoch ms: the "now" of the data; every time is at or before it. */
  anchor: number;
}

export interface DemoSite {
  domain: string;
  clientRef: string | null;
}

export interface DemoData {
  sites: DemoSite[];
  companies: CompanyInput[];
  people: PersonInput[];
  /** Events in batches, generated lazily so huge journeys never sit in memory at once. */
  events(): Generator<EventInput[]>;
  eventCount: number;
}

/** Largest batch `events()` yields. */
export const EVENT_BATCH_SIZE = 5_000;

/** The demo partner's client sites, the same for every seed. */
export const DEMO_SITES: readonly DemoSite[] = CATALOG_SITES.map(({ domain, clientRef }) => ({ domain, clientRef }));

/** Generates a demo data set; the same options always give the same data, events included. */
export function generateDemo(options: DemoOptions): DemoData {
  const { seed, people: count, anchor } = options;
  if (!Number.isInteger(count) || count < 1) throw new RangeError('people must be a positive integer');
  if (!Number.isFinite(anchor)) throw new RangeError('anchor must be epoch milliseconds');
  const anchorSeconds = Math.floor(anchor / 1000);
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  // Each part has its own stream, so changing how one part draws leaves the others as they were.
  const content = buildContent(faker, CATALOG_SITES, new Date(anchor).getUTCFullYear());
  const companies = generateCompanies(faker, createRng(mixSeed(seed, 1)), companyCount(count));
  const plans = planVisits(createRng(mixSeed(seed, 2)), count, anchorSeconds);
  const people = generatePeople(faker, createRng(mixSeed(seed, 3)), companies, plans);
  const eventCount = plans.reduce((n, visits) => n + visits.reduce((m, v) => m + v.events, 0), 0);

  function* events(): Generator<EventInput[]> {
    let batch: EventInput[] = [];
    for (let i = 0; i < plans.length; i++) {
      const who = { personId: people[i]!.id, key: people[i]!.id.slice('per_'.length) };
      let seq = 0;
      for (const [v, plan] of plans[i]!.entries()) {
        // Seeded per visit, so a person's journey never depends on who came before.
        const generated = visitEvents(content, createRng(mixSeed(seed, 4, i, v)), who, v, plan, seq);
        seq += generated.length;
        for (const event of generated) {
          batch.push(event);
          if (batch.length === EVENT_BATCH_SIZE) {
            yield batch;
            batch = [];
          }
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  return {
    sites: DEMO_SITES.map((s) => ({ ...s })),
    companies: companies.map((c) => c.input),
    people,
    events,
    eventCount,
  };
}
