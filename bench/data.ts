/**
 * The benchmark databases, built once per seed and size under bench/.cache and reused after that:
 * the paging data (demo people, sites and companies, plus generated events with journeys of exact
 * sizes) and the export data (demo people only, many more of them). Both load the demo data as
 * the demo seeder does, through the admin surface.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createApi, ManualClock } from '../adapters/node/index.ts';
import { toSeconds } from '../core/admin/inputs.ts';
import type { Admin } from '../core/index.ts';
import { deriveDemoKey } from '../scripts/demo-keys.ts';
import { generateDemo, type DemoData } from '../scripts/demo/generate.ts';
import { SILENT, terminalProgress } from '../scripts/demo/progress.ts';
import { loadDemo, type SeedProgress } from '../scripts/demo/seed.ts';
import { benchEvents, planEvents } from './journey-events.ts';

/** The benchmark account's id. */
export const BENCH_ACCOUNT = 'acc_bench';
/** The data's "now": every time is at or before it, and the suites' clock stands on it. */
export const BENCH_ANCHOR = Date.UTC(2026, 10, 20, 12);
/** Bump when the paging data changes shape, so old cached files are not reused (v2: a scoped key over a domain and its subdomain). */
const DATA_VERSION = 2;
/** A demo domain with a subdomain: its scoped key's figures are summed over two sites at query time. */
export const MULTI_SITE_DOMAIN = 'acme-example.com';
/** Bump when the export data changes (v2: built like the paging data, its account named alike). */
const EXPORT_VERSION = 2;
const DEFAULT_CACHE = join(import.meta.dirname, '.cache');

/** How a database is built. */
export interface BuildOptions {
  /** Show a progress bar while building (on a terminal, never in CI). Default true. */
  progress?: boolean;
  /** Where built databases are kept. Default `bench/.cache`. */
  cacheDir?: string;
}

/** Sizes of the benchmark data set. */
export interface BenchDataOptions extends BuildOptions {
  seed: number;
  people: number;
  events: number;
  /** Exact journey sizes, e.g. `[1000, 10000, 50000]`. */
  journeys: number[];
}

/** A person whose journey has exactly `events` events. */
export interface Journey {
  personId: string;
  events: number;
}

/** A ready benchmark database and what the suites need to read it. */
export interface BenchData {
  path: string;
  accountKey: string;
  /** A domain-scoped key of the site the largest journey was last seen on. */
  scopedKey: { domain: string; key: string };
  /** A domain-scoped key of {@link MULTI_SITE_DOMAIN}, which covers its subdomain's site too. */
  multiSiteKey: { domain: string; key: string };
  /** The exact-size journeys, in the order asked for. */
  journeys: Journey[];
  /** The largest of `journeys` (the first such on a tie): the one deep pages and HTTP read. */
  largest: Journey;
  /** On a PostgreSQL run (`--postgres`): the URL of the copy of `path` the paging suites read instead. */
  postgres?: string;
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
  // The demo people take well under a second to regenerate, so the database file is the whole
  // cache: the journey people and keys are recomputed from the seed rather than stored beside it.
  const demo = generateDemo({ seed, people, anchor: BENCH_ANCHOR });
  const plan = planEvents(seed, demo.people, events, journeys);
  const described = describeData(seed, demo, plan.journeyPeople, journeys);
  const file = `paging-v${DATA_VERSION}-s${seed}-p${people}-e${events}-j${journeys.join('_')}.sqlite`;
  const path = await cachedDatabase(file, `Bench data (seed ${seed})`, options, async (admin, onProgress) => {
    await loadDemo(admin, BENCH_ACCOUNT, { ...demo, events: () => benchEvents(seed, demo.people, plan), eventCount: events }, onProgress);
    await admin.issueAccountKey(BENCH_ACCOUNT, { label: 'bench account key', value: described.accountKey });
    await admin.issueScopedKey(BENCH_ACCOUNT, described.scopedKey.domain, { label: 'bench scoped key', value: described.scopedKey.key });
    await admin.issueScopedKey(BENCH_ACCOUNT, MULTI_SITE_DOMAIN, { label: 'bench multi-site scoped key', value: described.multiSiteKey.key });
  });
  return { path, ...described };
}

/** Sizes of an export database. */
export interface ExportDataOptions extends BuildOptions {
  seed: number;
  people: number;
}

/** Builds (or reuses) a database of `people` demo people and no events (exports read people only); its path. */
export async function exportDatabase(options: ExportDataOptions): Promise<string> {
  const { seed, people } = options;
  if (!Number.isInteger(people) || people < 1) throw new RangeError(`people must be a positive integer, got ${people}`);
  return cachedDatabase(`export-v${EXPORT_VERSION}-s${seed}-p${people}.sqlite`, `Export data (${people.toLocaleString('en')} people)`, options, async (admin, onProgress) => {
    // Generated only when building: a million demo people take a while to make.
    const demo = generateDemo({ seed, people, anchor: BENCH_ANCHOR });
    await loadDemo(admin, BENCH_ACCOUNT, { ...demo, events: function* () {}, eventCount: 0 }, onProgress);
  });
}

/**
 * A copy of the export data with an account key of its own, for a suite that serves it over HTTP:
 * the server writes (rate-limit counts, exports), and the cached database stays as built.
 */
export async function servedExportCopy(options: ExportDataOptions, label: string): Promise<{ db: string; key: string; remove: () => void }> {
  const source = await exportDatabase(options);
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-served-'));
  const db = join(dir, 'served.sqlite');
  copyFileSync(source, db);
  const key = deriveDemoKey(options.seed, label);
  const api = await createApi({ database: db, clock: new ManualClock(BENCH_ANCHOR) });
  await api.admin.issueAccountKey(BENCH_ACCOUNT, { label, value: key });
  await api.close();
  return { db, key, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Keys, scoped site and journey people, as they follow from the seed. */
function describeData(seed: number, demo: DemoData, journeyPeople: number[], sizes: number[]): Omit<BenchData, 'path'> {
  const journeys = sizes.map((events, k) => ({ personId: demo.people[journeyPeople[k]!]!.id, events }));
  const largest = journeys.reduce((a, b) => (b.events > a.events ? b : a));
  const person = demo.people[journeyPeople[journeys.indexOf(largest)]!]!;
  const lastSeen = (visit: (typeof person.visits)[number]) => toSeconds(visit.lastSeen, 'lastSeen');
  const { domain } = person.visits.reduce((a, b) => (lastSeen(b) > lastSeen(a) ? b : a));
  return {
    accountKey: deriveDemoKey(seed, 'bench account'),
    scopedKey: { domain, key: deriveDemoKey(seed, `bench site ${domain}`) },
    multiSiteKey: { domain: MULTI_SITE_DOMAIN, key: deriveDemoKey(seed, `bench site ${MULTI_SITE_DOMAIN}`) },
    journeys,
    largest,
  };
}

/**
 * `<cacheDir>/<file>`, built first when it is not there: the benchmark account is created and
 * `fill` loads it into `<file>.building`, which is renamed into place only once complete and
 * closed, so an interrupted build is never taken for a cached one.
 */
export async function cachedDatabase(file: string, label: string, options: BuildOptions, fill: (admin: Admin, onProgress: (p: SeedProgress) => void) => Promise<void>): Promise<string> {
  const dir = options.cacheDir ?? DEFAULT_CACHE;
  const path = join(dir, file);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.building`;
  // An interrupted build leaves its WAL beside it, which SQLite would replay into the new file.
  for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(leftover, { force: true });
  const progress = options.progress === false ? SILENT : terminalProgress(label);
  const api = await createApi({ database: partial, clock: new ManualClock(BENCH_ANCHOR) });
  try {
    // SQLite's default 2 MB page cache makes each insert into a big index a disk read once the
    // indexes outgrow it: ten million events took ever longer per batch. A build may use 1 GiB.
    await sql`pragma cache_size = -1048576`.execute(api.db);
    await api.admin.createAccount({ id: BENCH_ACCOUNT, name: 'Benchmark' });
    await fill(api.admin, (p) => progress.update(p));
  } finally {
    progress.stop();
    // Closing checkpoints the WAL into the file, so the renamed file is complete on its own.
    await api.close();
  }
  renameSync(partial, path);
  return path;
}
