/**
 * Stats and companies at scale (issue 17, "New"): requests/s of `GET /v1/stats` and
 * `GET /v1/companies` through `api.fetch` on 100,000 people and 10,000,000 events, its own
 * database (stats-data.ts). Stats run beside the old path (a `count(*)` over the period's events
 * on every request, stats-floor.ts) for several periods, with the account key and two scoped keys;
 * companies, a first and a deep page beside the keyset floor (people-floor.ts). Every answer is
 * checked against its floor's, byte for byte, before anything is timed.
 */
import BetterSqlite3 from 'better-sqlite3';
import { BENCH_ACCOUNT, BENCH_ANCHOR } from '../data.ts';
import { target, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { DEFAULT_STATS_DATA, statsDatabase, TINY_STATS_DATA, type StatsData } from '../stats-data.ts';
import { cursorParam, getText, nextCursorOf, openBenchApi } from './paging-api.ts';
import { measure, pageTiming, type PagingCase, type Timing } from './paging-bench.ts';
import { ListFloor } from './people-floor.ts';
import { passRatioNote } from './pass-ratios.ts';
import { OldStatsPath } from './stats-floor.ts';
import { assertSameData, type SuiteOptions } from './suite.ts';

const PAGE = 100;
/** The deep companies page: this many companies in, or as deep as the list goes. */
const DEEP = 10_000;
const NOW_S = BENCH_ANCHOR / 1000;

/** What the suite reads of the run's options, and the sizes `--people`/`--events` would not change (its own data). */
export interface StatsSuiteOptions extends Pick<SuiteOptions, 'seed' | 'cacheDir' | 'tiny' | 'onCase'> {
  people?: number;
  events?: number;
}

/** The old path counts millions of index entries a call at full size: a few calls per round, not a time budget. */
function oldPathTiming(tiny: boolean): Omit<Timing, 'rounds'> {
  return tiny ? { time: 0, iterations: 2, warmupTime: 0, warmupIterations: 1 } : { time: 0, iterations: 8, warmupTime: 0, warmupIterations: 1 };
}

/** The keys stats and companies are read with. */
function keysOf(data: StatsData) {
  return [
    { label: 'account key', key: data.accountKey, scopeDomain: undefined as string | undefined },
    ...data.scopedKeys.map((s) => ({ label: `scoped key (${s.domain}, ${s.sites} site${s.sites > 1 ? 's' : ''})`, key: s.key, scopeDomain: s.domain as string | undefined })),
  ];
}

export async function statsCompaniesSuite(options: StatsSuiteOptions): Promise<SuiteResult> {
  const { seed, cacheDir, tiny } = options;
  const sizes = tiny ? TINY_STATS_DATA : DEFAULT_STATS_DATA;
  const data = await statsDatabase({ seed, cacheDir, people: options.people ?? sizes.people, events: options.events ?? sizes.events });
  const api = await openBenchApi(data.path);
  const old = new OldStatsPath(data.path, BENCH_ACCOUNT);
  const lists = new ListFloor(data.path, BENCH_ACCOUNT);
  try {
    const cases: PagingCase[] = [];
    for (const { label, key, scopeDomain } of keysOf(data)) {
      for (const days of scopeDomain === undefined ? [1, 7, 30, 365] : [1, 30, 365]) {
        const path = `/v1/stats?days=${days}`;
        const at = `stats days=${days}, ${label}`;
        const ours = await getText(api, key, path);
        if (ours !== old.stats(days, NOW_S, scopeDomain)) throw new Error(`${at}: ours ${ours} but the old path ${old.stats(days, NOW_S, scopeDomain)}`);
        const params = { list: 'stats', key: scopeDomain ?? 'account', days };
        cases.push(
          { name: `${at} · api.fetch`, role: 'ours', params: { ...params, floor: `${at} · old path` }, perCall: 1, unit: 'req/s', run: () => getText(api, key, path) },
          { name: `${at} · old path`, role: 'floor', params, perCall: 1, unit: 'req/s', run: () => old.stats(days, NOW_S, scopeDomain), timing: oldPathTiming(tiny) },
        );
      }
    }
    for (const { label, key, scopeDomain } of keysOf(data).slice(0, 2)) {
      for (const deep of [false, true]) {
        const { path, after, depth } = deep ? await deepPage(api, key) : { path: `/v1/companies?limit=${PAGE}`, after: undefined, depth: 0 };
        const at = `companies page @ ${depth.toLocaleString('en')}, ${label}`;
        const request = { list: 'companies' as const, ...(scopeDomain ? { scopeDomain } : {}), ...(after ? { after } : {}) };
        assertSameData(await getText(api, key, path), lists.page(request), at);
        const params = { list: 'companies', key: scopeDomain ?? 'account', depth };
        cases.push(
          { name: `${at} · api.fetch`, role: 'ours', params: { ...params, floor: `${at} · keyset floor` }, perCall: 1, unit: 'req/s', run: () => getText(api, key, path) },
          { name: `${at} · keyset floor`, role: 'floor', params, perCall: 1, unit: 'req/s', run: () => lists.page(request) },
        );
      }
    }
    const results = await measure(cases, pageTiming(tiny), options.onCase);
    return {
      suite: 'stats-companies',
      title: `Stats and companies at ${data.people.toLocaleString('en')} people and ${data.events.toLocaleString('en')} events (in-process)`,
      cases: results,
      targets: targetsOf(results, data, siteSets(data.path)),
    };
  } finally {
    lists.close();
    old.close();
    await api.close();
  }
}

/** The companies page `DEEP` rows in (or the last full page of a shorter list), its path, and the keyset position before it. */
async function deepPage(api: Awaited<ReturnType<typeof openBenchApi>>, key: string): Promise<{ path: string; after: [number, string]; depth: number }> {
  let cursor: string | undefined;
  let previous = '';
  let depth = 0;
  for (;;) {
    const body = await getText(api, key, `/v1/companies?limit=${PAGE}${cursorParam(cursor)}`);
    const next = nextCursorOf(body);
    if (depth > 0 && (depth >= DEEP || next === undefined)) {
      const rows = (JSON.parse(previous) as { data: { id: string; lastSeen: string }[] }).data;
      const last = rows[rows.length - 1]!;
      return { path: `/v1/companies?limit=${PAGE}${cursorParam(cursor)}`, after: [Date.parse(last.lastSeen) / 1000, last.id], depth };
    }
    if (next === undefined) throw new Error('the companies list has a single page: no deep page to measure');
    previous = body;
    cursor = next;
    depth += PAGE;
  }
}

/** How many distinct sets of sites the stats sum over, for the notes. */
function siteSets(path: string): Record<'person' | 'company', number> {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    const count = (kind: string) => (db.prepare('SELECT count(*) AS n FROM site_sets WHERE kind = ?').get(kind) as { n: number }).n;
    return { person: count('person'), company: count('company') };
  } finally {
    db.close();
  }
}

/**
 * The stats targets: ours against the old path at 10,000,000 events, and a year's stats against a
 * day's (the cost must not follow the events in the period); companies' deep pages against first.
 */
function targetsOf(results: CaseResult[], data: StatsData, sets: Record<'person' | 'company', number>): TargetResult[] {
  const find = (name: string) => results.find((c) => c.name === name)!;
  const ms = (c: CaseResult) => `${c.medianMs!.toFixed(3)} ms`;
  const events = data.events.toLocaleString('en');
  const complexity =
    'A stats request sums counters kept as data loads, in one statement: 16-day blocks after the block the period starts in (≤ sites × ⌈days ÷ 16⌉ rows), day buckets for the rest of that block (≤ sites × 15), hour buckets for the rest of that day (≤ sites × 24), ' +
    'and an index range over at most half an hour of events at the edge (the shorter side of the window start within its hour); people and companies from their counts per distinct set of sites ' +
    `(one row per set: ${sets.person} people sets and ${sets.company} company sets here, for ${data.people.toLocaleString('en')} people). ` +
    "The old path also counted the account's people and companies, or a distinct count over a scoped view's visits, on every request.";
  const targets: TargetResult[] = [];
  for (const days of [30, 365]) {
    const ours = find(`stats days=${days}, account key · api.fetch`);
    const old = find(`stats days=${days}, account key · old path`);
    targets.push({
      ...target(`GET /v1/stats?days=${days} (account key) at ${events} events: ≥ 10× the old path's req/s`, ours.perSecond!, old.perSecond!, 10, 'at-least'),
      note: `${ms(ours)} against ${ms(old)} for the old path, which counted every event of the period (count(*) over the (account_id, ts) index) on each request. ${complexity}`,
    });
  }
  const day = find('stats days=1, account key · api.fetch');
  const year = find('stats days=365, account key · api.fetch');
  targets.push({
    ...target('GET /v1/stats?days=365 ≤ 2× days=1 (account key): the cost does not follow the events in the period', year.medianMs!, day.medianMs!, 2, 'at-most'),
    note: `days=1 ${ms(day)}, days=365 ${ms(year)}; the old path: ${ms(find('stats days=1, account key · old path'))} and ${ms(find('stats days=365, account key · old path'))}.`,
  });
  for (const key of ['account', data.scopedKeys[0]!.domain]) {
    const pagesOf = (role: CaseResult['role']) => results.filter((c) => c.role === role && c.params?.list === 'companies' && c.params.key === key);
    const [first, deep] = [pagesOf('ours').find((c) => c.params!.depth === 0)!, pagesOf('ours').find((c) => c.params!.depth !== 0)!];
    const [floorFirst, floorDeep] = [pagesOf('floor').find((c) => c.params!.depth === 0)!, pagesOf('floor').find((c) => c.params!.depth !== 0)!];
    targets.push(
      target(
        `companies page at depth ${Number(deep.params!.depth).toLocaleString('en')} ≤ 1.1× the first page (${key === 'account' ? 'account key' : `scoped key ${key}`})`,
        deep.medianMs!,
        first.medianMs!,
        1.1,
        'at-most',
        `first ${ms(first)}, deep ${ms(deep)}: both one keyset range scan; the deep page also verifies a signed cursor. The keyset floor's same pages: ${ms(floorFirst)} and ${ms(floorDeep)} (${(floorDeep.medianMs! / floorFirst.medianMs!).toFixed(2)}×). ${passRatioNote(deep, first)}`.trimEnd(),
      ),
    );
  }
  return targets;
}
