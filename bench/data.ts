/**
 * The benchmark database: demo people, sites and companies, plus generated events with journeys
 * of exact sizes, built once per seed and size under bench/.cache and reused after that.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createApi, ManualClock } from '../adapters/node/index.ts';
import { deriveDemoKey } from '../scripts/demo-keys.ts';
import { generateDemo, type DemoData } from '../scripts/demo/generate.ts';
import { terminalProgress } from '../scripts/demo/progress.ts';
import { benchEvents, planEvents, seconds } from './journey-events.ts';

/** The benchmark account's id. */
export const BENCH_ACCOUNT = 'acc_bench';
/** The data's "now": every time is at or before it, and the suites' clock stands on it. */
export const BENCH_ANCHOR = Date.UTC(2026, 10, 20, 12);
/** Bump when the generated data changes shape, so old cached files are not reused. */
const DATA_VERSION = 1;
/** People per loadPeople call, as the demo seeder does. */
const PEOPLE_CHUNK = 1_000;

/** Sizes of the benchmark data set. */
export interface BenchDataOptions {
  seed: number;
  people: number;
  events: number;
  /** Exact journey sizes, e.g. `[1000, 10000, 50000]`. */
  journeys: number[];
  /** Show a progress bar while building (on a terminal, never in CI). Default true. */
  progress?: boolean;
  /** Where built databases are kept. Default `bench/.cache`. */
  cacheDir?: string;
}

/** A ready benchmark database and what the suites need to read it. */
export interface BenchData {
  path: string;
  accountKey: string;
  /** A domain-scoped key of the site the largest journey was last seen on. */
  scopedKey: { domain: string; key: string };
  /** The exact-size journeys, in the order asked for. */
  journeys: { personId: string; events: number }[];
}

/** The default sizes: fit a 2-core, 24 GiB machine and still show depth effects. */
export const DEFAULT_DATA = { people: 2_000, events: 1_000_000, journeys: [1_000, 10_000, 50_000] };
/** The CI sizes: built in a few seconds. */
export const TINY_DATA = { people: 200, events: 20_000, journeys: [300, 2_000] };

/** Builds the benchmark database, or reuses the one already built for the same seed and sizes. */
export async function benchDatabase(options: BenchDataOptions): Promise<BenchData> {
  const { seed, people, events, journeys } = options;
  for (const [name, n] of [['people', people], ['events', events], ...journeys.map((j) => ['journey', j] as const)] as const) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
  }
  const dir = options.cacheDir ?? join(import.meta.dirname, '.cache');
  const path = join(dir, `paging-v${DATA_VERSION}-s${seed}-p${people}-e${events}-j${journeys.join('_')}.sqlite`);
  // The demo people take well under a second to regenerate, so the database file is the whole
  // cache: the journey people and keys are recomputed from the seed rather than stored beside it.
  const demo = generateDemo({ seed, people, anchor: BENCH_ANCHOR });
  const plan = planEvents(seed, demo.people, events, journeys);
  const described = describeData(seed, demo, plan.journeyPeople, journeys, path);
  if (!existsSync(path)) await build(options, demo, plan, described, path, dir);
  return described;
}

/** Keys, scoped site and journey people, as they follow from the seed. */
function describeData(seed: number, demo: DemoData, journeyPeople: number[], journeys: number[], path: string): BenchData {
  const largest = journeys.indexOf(Math.max(...journeys));
  const person = demo.people[journeyPeople[largest]!]!;
  const latest = person.visits.reduce((a, b) => (seconds(b.lastSeen) > seconds(a.lastSeen) ? b : a));
  const domain = latest.domain;
  return {
    path,
    accountKey: deriveDemoKey(seed, 'bench account'),
    scopedKey: { domain, key: deriveDemoKey(seed, `bench site ${domain}`) },
    journeys: journeys.map((size, k) => ({ personId: demo.people[journeyPeople[k]!]!.id, events: size })),
  };
}

/** Loads everything through the admin surface into `<path>.building`, then renames it into place. */
async function build(options: BenchDataOptions, demo: DemoData, plan: ReturnType<typeof planEvents>, data: BenchData, path: string, dir: string) {
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.building`;
  for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(leftover, { force: true });
  const progress = options.progress === false ? { update() {}, stop() {} } : terminalProgress(`Bench data (seed ${options.seed})`);
  const api = await createApi({ database: partial, clock: new ManualClock(BENCH_ANCHOR) });
  try {
    const { admin } = api;
    await admin.createAccount({ id: BENCH_ACCOUNT, name: 'Benchmark' });
    for (const site of demo.sites) await admin.registerSite(BENCH_ACCOUNT, site);
    await admin.loadCompanies(BENCH_ACCOUNT, demo.companies);
    for (let i = 0; i < demo.people.length; i += PEOPLE_CHUNK) {
      await admin.loadPeople(BENCH_ACCOUNT, demo.people.slice(i, i + PEOPLE_CHUNK));
      progress.update({ phase: 'people', done: Math.min(i + PEOPLE_CHUNK, demo.people.length), total: demo.people.length });
    }
    let loaded = 0;
    for (const batch of benchEvents(options.seed, demo.people, plan)) {
      await admin.loadEvents(BENCH_ACCOUNT, batch);
      loaded += batch.length;
      progress.update({ phase: 'events', done: loaded, total: options.events });
    }
    await admin.issueAccountKey(BENCH_ACCOUNT, { label: 'bench account key', value: data.accountKey });
    await admin.issueScopedKey(BENCH_ACCOUNT, data.scopedKey.domain, { label: 'bench scoped key', value: data.scopedKey.key });
  } finally {
    progress.stop();
    // Closing checkpoints the WAL into the file, so the renamed file is complete on its own.
    await api.close();
  }
  renameSync(partial, path);
}
