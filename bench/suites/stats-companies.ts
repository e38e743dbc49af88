/**
 * Stats and companies at scale: requests/s of `GET /v1/stats` and
 * `GET /v1/companies` through `api.fetch` on 100,000 people and 10,000,000 events, its own
 * database (stats-data.ts). Stats for several periods, with the account key and two scoped keys;
 * companies, a first and a deep page beside the keyset floor (people-floor.ts), checked against
 * it byte for byte before anything is timed.
 */
import { BENCH_ACCOUNT } from '../data.ts';
import { timeTarget, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { DEFAULT_STATS_DATA, statsDatabase, TINY_STATS_DATA, type StatsData } from '../stats-data.ts';
import { cursorParam, getText, nextCursorOf, openBenchApi } from './paging-api.ts';
import { measure, pageTiming, type PagingCase } from './paging-bench.ts';
import { ListFloor } from './people-floor.ts';
import { assertSameData, type SuiteOptions } from './suite.ts';

const PAGE = 100;
/** The deep companies page: this many companies in, or as deep as the list goes. */
const DEEP = 10_000;

/** What the suite reads of the run's options, and the sizes `--people`/`--events` would not change (its own data). */
export interface StatsSuiteOptions extends Pick<SuiteOptions, 'seed' | 'cacheDir' | 'tiny' | 'progress'> {
  people?: number;
  events?: number;
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
  const lists = new ListFloor(data.path, BENCH_ACCOUNT);
  try {
    const cases: PagingCase[] = [];
    for (const { label, key, scopeDomain } of keysOf(data)) {
      for (const days of scopeDomain === undefined ? [1, 7, 30, 365] : [1, 30, 365]) {
        const path = `/v1/stats?days=${days}`;
        const at = `stats days=${days}, ${label}`;
        cases.push({ name: `${at} · api.fetch`, role: 'ours', params: { list: 'stats', key: scopeDomain ?? 'account', days }, unit: 'req/s', run: () => getText(api, key, path) });
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
          { name: `${at} · api.fetch`, role: 'ours', params: { ...params, floor: `${at} · keyset floor` }, unit: 'req/s', run: () => getText(api, key, path) },
          { name: `${at} · keyset floor`, role: 'floor', params, unit: 'req/s', run: () => lists.page(request) },
        );
      }
    }
    const results = await measure(cases, pageTiming(tiny), options.progress);
    return {
      suite: 'stats-companies',
      title: `Stats and companies at ${data.people.toLocaleString('en')} people and ${data.events.toLocaleString('en')} events (in-process)`,
      cases: results,
      targets: statsTargets(results),
    };
  } finally {
    lists.close();
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

/** A year's stats ≤ 2× a day's (the cost must not follow the events in the period); each deep companies page ≤ 1.2× its first. */
export function statsTargets(results: CaseResult[]): TargetResult[] {
  const ours = results.filter((c) => c.role === 'ours');
  const stats = (days: number) => ours.find((c) => c.params?.list === 'stats' && c.params.key === 'account' && c.params.days === days)!;
  const targets = [timeTarget('GET /v1/stats?days=365 ≤ 2× days=1 (account key)', stats(365), stats(1), 2)];
  const companies = ours.filter((c) => c.params?.list === 'companies');
  for (const key of new Set(companies.map((c) => c.params!.key))) {
    const first = companies.find((c) => c.params!.key === key && c.params!.depth === 0)!;
    const deep = companies.find((c) => c.params!.key === key && c.params!.depth !== 0)!;
    const who = key === 'account' ? 'account key' : `scoped key ${key}`;
    targets.push(timeTarget(`companies page at depth ${Number(deep.params!.depth).toLocaleString('en')} ≤ 1.2× the first page (${who})`, deep, first, 1.2));
  }
  return targets;
}
