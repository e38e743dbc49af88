/**
 * The benchmark's events, generated fast and deterministically: chosen people get journeys of
 * exactly the sizes asked for, the remaining events spread unevenly over everyone else. Faker
 * only fills small pools of titles, paths and agents; a seeded PRNG draws everything per event,
 * because faker per event would make a million events take minutes before loading even starts.
 */
import { base, en, Faker } from '@faker-js/faker';
import { toSeconds } from '../core/admin/inputs.ts';
import type { EventInput, PersonInput } from '../core/index.ts';
import { createRng, mixSeed, type Rng } from '../scripts/demo/rng.ts';

/** Largest batch `benchEvents` yields: one `admin.loadEvents` transaction. */
const EVENT_BATCH = 5_000;

/** Text the events draw from, built once per data set. */
interface Pools {
  pages: { path: string; title: string }[];
  agents: string[];
  referrers: string[];
  elements: string[];
  forms: string[];
  videos: string[];
  files: string[];
}

/** How many events each person gets, and which people carry the exact-size journeys. */
export interface EventPlan {
  /** Events per person, by index into the people list. */
  counts: number[];
  /** For each requested journey size, in the order given: the index of its person. */
  journeyPeople: number[];
}

const MINUTE = 60;
const SESSION_GAP = 30 * MINUTE;

/**
 * Gives the journeys to the people active longest (largest journey to the longest window), so
 * 50,000 events spread over months rather than piling onto the same second; the rest of `total`
 * goes to the others with skewed weights, as real traffic is.
 */
export function planEvents(seed: number, people: PersonInput[], total: number, journeys: number[]): EventPlan {
  const journeySum = journeys.reduce((a, b) => a + b, 0);
  if (journeySum > total) throw new RangeError(`journeys need ${journeySum} events but only ${total} were asked for`);
  if (journeys.length >= people.length) throw new RangeError('need more people than journeys');
  const span = (p: PersonInput) => Math.max(...p.visits.map((v) => toSeconds(v.lastSeen, 'lastSeen'))) - Math.min(...p.visits.map((v) => toSeconds(v.firstSeen, 'firstSeen')));
  const bySpan = people.map((p, i) => ({ i, span: span(p) })).sort((a, b) => b.span - a.span || a.i - b.i);
  const order = journeys.map((size, k) => ({ size, k })).sort((a, b) => b.size - a.size || a.k - b.k);
  const journeyPeople = new Array<number>(journeys.length);
  order.forEach(({ k }, rank) => (journeyPeople[k] = bySpan[rank]!.i));

  const counts = new Array<number>(people.length).fill(0);
  journeys.forEach((size, k) => (counts[journeyPeople[k]!] = size));
  const taken = new Set(journeyPeople);
  const rng = createRng(mixSeed(seed, 71));
  const others = people.map((_, i) => i).filter((i) => !taken.has(i));
  const weights = others.map(() => 0.05 + rng.next() ** 2);
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const rest = total - journeySum;
  let given = 0;
  others.forEach((i, k) => {
    counts[i] = Math.floor((rest * weights[k]!) / weightSum);
    given += counts[i]!;
  });
  for (let k = 0; given < rest; k = (k + 1) % others.length, given++) counts[others[k]!]! += 1;
  return { counts, journeyPeople };
}

/** The pools, drawn from a faker seeded with `seed`. */
function buildPools(seed: number): Pools {
  const faker = new Faker({ locale: [en, base] });
  faker.seed(mixSeed(seed, 72));
  const sections = ['blog', 'docs', 'features', 'resources', 'customers', 'solutions'];
  const pages = [
    { path: '/', title: 'Home' },
    { path: '/pricing', title: 'Pricing' },
    ...Array.from({ length: 40 }, () => {
      const words = faker.lorem.words({ min: 2, max: 5 });
      return { path: `/${faker.helpers.arrayElement(sections)}/${faker.helpers.slugify(words).toLowerCase()}`, title: faker.company.catchPhrase() };
    }),
  ];
  return {
    pages,
    agents: Array.from({ length: 12 }, () => faker.internet.userAgent()),
    referrers: Array.from({ length: 10 }, () => faker.internet.url({ appendSlash: true })),
    elements: ['a.nav-pricing', 'a.nav-docs', 'button#request-demo', 'a.cta-contact', 'a.blog-card', 'a.feature-card', 'a.footer-about'],
    forms: ['contact-sales', 'newsletter', 'demo-request', 'whitepaper-download'],
    videos: Array.from({ length: 6 }, () => `vid_${faker.string.alphanumeric({ length: 10, casing: 'lower' })}`),
    files: Array.from({ length: 6 }, () => faker.system.commonFileName('pdf')),
  };
}

/** One person's events, oldest first, timed inside their visit windows and split into sessions. */
function personEvents(pools: Pools, rng: Rng, person: PersonInput, count: number): EventInput[] {
  const visits = person.visits.map((v) => ({ domain: v.domain, first: toSeconds(v.firstSeen, 'firstSeen'), last: toSeconds(v.lastSeen, 'lastSeen'), weight: v.visitCount }));
  const key = person.id.slice('per_'.length);
  const choices = visits.map((v, k) => [k, v.weight] as const);
  const drawn: { ts: number; visit: number }[] = [];
  for (let n = 0; n < count; n++) {
    const visit = visits.length === 1 ? 0 : rng.weighted(choices);
    const v = visits[visit]!;
    drawn.push({ ts: rng.int(v.first, v.last), visit });
  }
  drawn.sort((a, b) => a.ts - b.ts);
  const events: EventInput[] = [];
  let session = 0;
  let previous = -Infinity;
  const agent = rng.pick(pools.agents);
  for (const [seq, { ts, visit }] of drawn.entries()) {
    if (ts - previous > SESSION_GAP) session++;
    previous = ts;
    const page = rng.pick(pools.pages);
    const domain = visits[visit]!.domain;
    const event: EventInput = {
      eventId: `evt_${key}${seq.toString(36).padStart(4, '0')}`,
      personId: person.id,
      sessionId: `ses_${key}${session.toString(36).padStart(3, '0')}`,
      eventType: 'page_view',
      timestamp: ts * 1000,
      url: `https://${domain}${page.path}`,
      domain,
      pageTitle: page.title,
      userAgent: agent,
    };
    const kind = rng.next();
    if (kind < 0.45) event.referrer = rng.pick(pools.referrers);
    else if (kind < 0.7) Object.assign(event, { eventType: 'click', clickElement: rng.pick(pools.elements), clickHref: `https://${domain}${rng.pick(pools.pages).path}` });
    else if (kind < 0.88) Object.assign(event, { eventType: 'scroll', scrollPercentage: rng.pick([25, 50, 75, 100]) });
    else if (kind < 0.94) Object.assign(event, { eventType: 'form_submission', formId: rng.pick(pools.forms) });
    else if (kind < 0.97) Object.assign(event, { eventType: 'video_play', videoId: rng.pick(pools.videos), durationSeconds: rng.int(30, 900) });
    else Object.assign(event, { eventType: 'file_download', fileName: rng.pick(pools.files) });
    events.push(event);
  }
  return events;
}

/** Every planned event, in batches of at most {@link EVENT_BATCH}, one person at a time. */
export function* benchEvents(seed: number, people: PersonInput[], plan: EventPlan): Generator<EventInput[]> {
  const pools = buildPools(seed);
  let batch: EventInput[] = [];
  for (const [i, person] of people.entries()) {
    if (plan.counts[i] === 0) continue;
    // Seeded per person, so one person's events never depend on anyone else's.
    for (const event of personEvents(pools, createRng(mixSeed(seed, 73, i)), person, plan.counts[i]!)) {
      batch.push(event);
      if (batch.length === EVENT_BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}
