import { CATALOG_SITES, type CatalogSite } from './catalog.ts';
import type { Rng } from './rng.ts';

const DAY = 86_400;
/** How far back activity reaches from the anchor. */
export const WINDOW_DAYS = 180;

/** One person's activity on one site: the visit window and how many events it holds. */
export interface VisitPlan {
  site: CatalogSite;
  visitCount: number;
  /** Epoch seconds; firstSeen <= lastSeen <= the anchor. */
  firstSeen: number;
  lastSeen: number;
  /** Events of this visit's journey (at least 1). */
  events: number;
}

/** Journey sizes: most people do a few things, a few do a lot. */
interface Tier {
  events: [number, number];
  visitCount: [number, number];
}
const SMALL: Tier = { events: [3, 10], visitCount: [1, 4] };
const MEDIUM: Tier = { events: [11, 80], visitCount: [2, 20] };
const LARGE: Tier = { events: [100, 600], visitCount: [10, 60] };
/** The "power user" whose journey is long enough to need many pages of events. */
const HEAVY: Tier = { events: [3_000, 5_000], visitCount: [45, 60] };

/** Index of the person who is always multi-client, so even tiny runs have one. */
export const ALWAYS_MULTI_CLIENT = 1;
/** Every TIE_EVERY-th person (from TIE_EVERY - 1) shares the previous person's lastSeen to the second. */
export const TIE_EVERY = 100;

/** The heavy people of a run: one per 400 people once there are at least 50, chosen by `rng`. */
function pickHeavy(rng: Rng, people: number): Set<number> {
  const heavy = new Set<number>();
  if (people < 50) return heavy;
  const wanted = Math.max(1, Math.floor(people / 400));
  while (heavy.size < wanted) heavy.add(rng.int(0, people - 1));
  return heavy;
}

/** Plans every person's visits: which sites, when, how often and how many events. */
export function planVisits(rng: Rng, people: number, anchorSeconds: number): VisitPlan[][] {
  const heavy = pickHeavy(rng, people);
  const clientSites = CATALOG_SITES.filter((s) => s.clientRef !== null);
  const plans: VisitPlan[][] = [];
  for (let i = 0; i < people; i++) {
    // The first people each take one site in catalogue order, so every site has visitors.
    const primary = i < CATALOG_SITES.length ? CATALOG_SITES[i]! : pickSite(rng);
    const multi = primary.clientRef !== null && (i === ALWAYS_MULTI_CLIENT || rng.chance(0.15));
    const sites = [primary];
    if (multi) {
      const extra = rng.int(1, 2);
      while (sites.length < 1 + extra) {
        const candidate = rng.pick(clientSites);
        if (!sites.some((s) => s.clientRef === candidate.clientRef)) sites.push(candidate);
      }
    }
    const tier = heavy.has(i) ? HEAVY : rng.weighted<Tier>([[SMALL, 75], [MEDIUM, 20], [LARGE, 5]]);
    const shares = split(rng, rng.int(...tier.events), sites.length);
    const tieWith = i % TIE_EVERY === TIE_EVERY - 1 && sites.length === 1 ? latest(plans[i - 1]) : undefined;
    plans.push(sites.map((site, k) => planVisit(rng, site, tier, shares[k]!, anchorSeconds, heavy.has(i), tieWith)));
  }
  return plans;
}

function planVisit(rng: Rng, site: CatalogSite, tier: Tier, events: number, anchor: number, heavy: boolean, tieWith?: number): VisitPlan {
  const visitCount = Math.min(rng.int(...tier.visitCount), events);
  // Squaring a uniform draw makes recent activity more common than old.
  const ago = heavy ? rng.int(0, 2 * DAY) : Math.floor(WINDOW_DAYS * DAY * rng.next() ** 2);
  const lastSeen = tieWith ?? anchor - ago;
  const earliest = anchor - WINDOW_DAYS * DAY;
  // One visit is one sitting of a minute or so per event; more visits spread over days.
  const wanted = heavy
    ? rng.int(150, WINDOW_DAYS) * DAY
    : visitCount === 1
      ? events * rng.int(20, 90)
      : Math.floor(visitCount * (0.5 + 2.5 * rng.next()) * DAY);
  const firstSeen = Math.max(earliest, lastSeen - wanted);
  return { site, visitCount, firstSeen: Math.min(firstSeen, lastSeen), lastSeen, events };
}

/** Popular sites get more people; the look-alike and agency sites get a few. */
function pickSite(rng: Rng): CatalogSite {
  return rng.weighted(CATALOG_SITES.map((s) => [s, s.clientRef === null || s.clientRef === 'badacme-labs' ? 1 : 3] as const));
}

/** Splits `total` into `parts` positive integers, the first usually largest. */
function split(rng: Rng, total: number, parts: number): number[] {
  if (parts === 1) return [total];
  const weights = Array.from({ length: parts }, (_, k) => (k === 0 ? 2 : 0.5) + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => Math.max(1, Math.floor((w / sum) * total)));
  shares[0]! += total - shares.reduce((a, b) => a + b, 0);
  return shares;
}

function latest(visits: VisitPlan[] | undefined): number | undefined {
  return visits?.reduce((m, v) => Math.max(m, v.lastSeen), 0);
}
