import { base, en, Faker } from '@faker-js/faker';
import { AdminError, type Admin, type PersonInput } from '../../core/index.ts';
import { CATALOG_SITES, type CatalogSite } from './catalog.ts';
import { generateCompanies } from './companies.ts';
import { buildContent, type ContentPools } from './content.ts';
import { isoSeconds, visitEvents } from './journeys.ts';
import { generatePeople } from './people.ts';
import { createRng, mixSeed, type Rng } from './rng.ts';
import type { VisitPlan } from './visits.ts';

/** How the demo is kept alive. */
export interface SimulationOptions {
  /** New people identified on each tick. */
  newPeople: number;
  /** People seen before who come back with more activity on each tick (when there are any). */
  returning: number;
  /** Varies the generated names and ids; runs with different seeds never share an id. */
  seed: number;
}

/** What one tick loaded. */
export interface TickCounts {
  newPeople: number;
  returning: number;
  events: number;
}

/** A simulated person: what was loaded for them, so a return visit reloads them whole. */
interface Known {
  input: PersonInput;
  /** Events made so far, numbering the next ones' ids. */
  seq: number;
  /** Visits made so far, numbering the next session ids. */
  visits: number;
}

/** Simulated people remembered for return visits; older ones are forgotten (they stay loaded). */
const REMEMBERED = 500;
/** Companies the simulated people work at, loaded on the first tick. */
const COMPANIES = 12;

/**
 * Live demo traffic through the admin loading path, as a real tracker would feed it: each tick
 * identifies a few new people on the demo's client sites (person.identified) with a short visit
 * of events (person.activity), and brings a few earlier ones back for another visit. Data is in
 * the seeded demo's style (faker names, the demo's pages, clicks and scrolls), timed at the clock.
 */
export class DemoSimulator {
  readonly #faker = new Faker({ locale: [en, base] });
  readonly #rng: Rng;
  readonly #known: Known[] = [];
  #content: ContentPools | undefined;
  #companies: ReturnType<typeof generateCompanies> = [];
  #sites: CatalogSite[] = [];
  #tick = 0;

  constructor(
    private readonly admin: Admin,
    private readonly accountId: string,
    private readonly now: () => number,
    private readonly options: SimulationOptions,
  ) {
    this.#faker.seed(options.seed);
    this.#rng = createRng(mixSeed(options.seed, 7));
  }

  /** Loads one tick of traffic and says how much. */
  async tick(): Promise<TickCounts> {
    try {
      return await this.#load();
    } catch (error) {
      if (!(error instanceof AdminError) || !this.#content) throw error;
      // A reset took back the companies the first tick loaded, which the people name: load them again.
      await this.#loadCompanies();
      return this.#load();
    }
  }

  async #load(): Promise<TickCounts> {
    await this.#prepare();
    const nowSeconds = Math.floor(this.now() / 1000);
    const tick = this.#tick++;
    const returning = this.#pickReturning();
    const plans = Array.from({ length: this.options.newPeople }, () => [this.#visit(this.#rng.pick(this.#sites), nowSeconds, 1, nowSeconds)]);
    const fresh = generatePeople(this.#faker, createRng(mixSeed(this.options.seed, 8, tick)), this.#companies, plans).map((input) => ({ input, seq: 0, visits: 0 }));
    const events = [];
    for (const [i, who] of fresh.entries()) events.push(...this.#events(who, plans[i]![0]!, tick));
    for (const who of returning) {
      // Mostly the same site again; sometimes another one, which identifies them there too.
      const site = this.#rng.chance(0.7) ? this.#sites.find((s) => s.domain === who.input.visits[0]!.domain)! : this.#rng.pick(this.#sites);
      const earlier = who.input.visits.find((v) => v.domain === site.domain);
      const plan = this.#visit(site, nowSeconds, (earlier?.visitCount ?? 0) + 1, earlier ? Math.floor(Date.parse(String(earlier.firstSeen)) / 1000) : nowSeconds);
      who.input.visits = [...who.input.visits.filter((v) => v.domain !== site.domain), { domain: site.domain, visitCount: plan.visitCount, firstSeen: isoSeconds(plan.firstSeen), lastSeen: isoSeconds(nowSeconds) }];
      // Only this visit's events: the window opens a few minutes back, not at their first visit.
      events.push(...this.#events(who, { ...plan, firstSeen: nowSeconds - 300, visitCount: 1 }, tick));
    }
    // People first, so every event's person and site are known when the events arrive.
    await this.admin.loadPeople(this.accountId, [...fresh, ...returning].map((k) => k.input));
    if (events.length > 0) await this.admin.loadEvents(this.accountId, events);
    this.#known.push(...fresh);
    if (this.#known.length > REMEMBERED) this.#known.splice(0, this.#known.length - REMEMBERED);
    return { newPeople: fresh.length, returning: returning.length, events: events.length };
  }

  /** On the first tick: the account's demo sites, the page content, and a few companies. */
  async #prepare(): Promise<void> {
    if (this.#content) return;
    const registered = new Set((await this.admin.listSites(this.accountId)).map((s) => s.domain));
    this.#sites = CATALOG_SITES.filter((s) => registered.has(s.domain));
    if (this.#sites.length === 0) throw new Error(`account ${this.accountId} has none of the demo's client sites to simulate on`);
    this.#content = buildContent(this.#faker, CATALOG_SITES, new Date(this.now()).getUTCFullYear());
    this.#companies = generateCompanies(this.#faker, createRng(mixSeed(this.options.seed, 9)), COMPANIES);
    await this.#loadCompanies();
  }

  async #loadCompanies(): Promise<void> {
    await this.admin.loadCompanies(this.accountId, this.#companies.map((c) => c.input));
  }

  #pickReturning(): Known[] {
    const picked = new Set<Known>();
    const wanted = Math.min(this.options.returning, this.#known.length);
    while (picked.size < wanted) picked.add(this.#rng.pick(this.#known));
    return [...picked];
  }

  /** A visit ending now: a handful of events over the last few minutes. */
  #visit(site: CatalogSite, nowSeconds: number, visitCount: number, firstSeen: number): VisitPlan {
    return { site, visitCount, firstSeen: Math.min(firstSeen, nowSeconds - this.#rng.int(60, 600)), lastSeen: nowSeconds, events: this.#rng.int(2, 9) };
  }

  #events(who: Known, plan: VisitPlan, tick: number) {
    const visitor = { personId: who.input.id, key: who.input.id.slice('per_'.length) };
    const made = visitEvents(this.#content!, createRng(mixSeed(this.options.seed, 10, tick, who.seq)), visitor, who.visits++, plan, who.seq);
    who.seq += made.length;
    return made;
  }
}

/** A running simulation: ticks every `everySeconds` (the first at once) until stopped. */
export interface Simulation {
  stop(): Promise<void>;
}

/**
 * Runs `simulator` every `everySeconds`, one tick at a time (a slow tick delays the next instead
 * of overlapping it); each tick's counts or error go to `onTick`.
 */
export function runSimulation(simulator: DemoSimulator, everySeconds: number, onTick: (result: TickCounts | Error) => void): Simulation {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    running = simulator.tick().then(onTick, (error: unknown) => onTick(error instanceof Error ? error : new Error(String(error)))).then(() => {
      if (!stopped) timer = setTimeout(loop, everySeconds * 1000);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
