/**
 * Journey paging: a page of 100 events through `api.fetch` (auth, rate limits and signed cursor
 * included) at several depths, each beside the naive floors of journey-floor.ts.
 */
import type { Api } from '../../core/index.ts';
import { timeTarget, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { backendLabel, benchDatabaseOf, openJourneyFloor, type JourneyFloors } from './floors.ts';
import { cursorParam, getText, nextCursorOf, openBenchApi } from './paging-api.ts';
import { measure, pageTiming, type PagingCase } from './paging-bench.ts';
import { assertSameData, type SuiteOptions } from './suite.ts';

const PAGE = 100;

/** `50k`, `2,000`: a journey's size as case names show it. */
function size(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : n.toLocaleString('en');
}

/** Depth of the page that has no next page. */
function lastDepth(events: number): number {
  return Math.floor((events - 1) / PAGE) * PAGE;
}

/** The depths measured for each journey: 0 and the deep page everywhere; a ladder on the largest, for the chart. */
function depthsFor(events: number, deep: number, largest: boolean): number[] {
  const last = lastDepth(events);
  const wanted = largest ? [0, deep / 10, deep, deep * 2.5, last] : [0, Math.min(deep, last)];
  return [...new Set(wanted.filter((d) => d <= last))].sort((a, b) => a - b);
}

/** Signed cursors for the given depths, from one walk through the API before anything is timed. */
async function cursorsAt(api: Api, key: string, personId: string, depths: number[]): Promise<Map<number, string | undefined>> {
  const cursors = new Map<number, string | undefined>([[0, undefined]]);
  const deepest = Math.max(...depths);
  let cursor: string | undefined;
  for (let depth = PAGE; depth <= deepest; depth += PAGE) {
    cursor = nextCursorOf(await getText(api, key, `/v1/people/${personId}/events?limit=${PAGE}${cursorParam(cursor)}`));
    if (cursor === undefined) throw new Error(`journey of ${personId} ended before depth ${depth}`);
    if (depths.includes(depth)) cursors.set(depth, cursor);
  }
  return cursors;
}

/** Runs the suite over every journey of the data set. */
export async function journeyPagingSuite(options: SuiteOptions): Promise<SuiteResult> {
  const { data, tiny } = options;
  const { largest } = data;
  const key = data.accountKey;
  const deep = tiny ? 1_000 : 10_000;
  const api = await openBenchApi(benchDatabaseOf(options));
  const floors: JourneyFloors[] = [];
  const pageCases: PagingCase[] = [];
  try {
    for (const journey of data.journeys) {
      const { personId, events } = journey;
      const isLargest = journey === largest;
      const floor = await openJourneyFloor(options, personId);
      floors.push(floor);
      const path = `/v1/people/${personId}/events?limit=${PAGE}`;
      const depths = depthsFor(events, deep, isLargest);
      const cursors = await cursorsAt(api, key, personId, depths);
      for (const depth of depths) {
        const cursor = cursors.get(depth);
        const position = await floor.positionAt(depth);
        const ours = await getText(api, key, path + cursorParam(cursor));
        assertSameData(ours, await floor.keysetPage(position), `${size(events)} journey @ ${depth} (keyset floor)`);
        assertSameData(ours, await floor.offsetPage(depth), `${size(events)} journey @ ${depth} (OFFSET floor)`);
        const at = `${size(events)} journey, page @ ${depth.toLocaleString('en')}${depth === lastDepth(events) ? ' (last)' : ''}`;
        const params = { journey: events, depth, ...(isLargest ? { chart: 'depth' } : {}) };
        const floorName = `${at} · keyset floor`;
        pageCases.push(
          { name: `${at} · api.fetch`, role: 'ours', params: { ...params, series: 'api.fetch', floor: floorName }, unit: 'pages/s', run: () => getText(api, key, path + cursorParam(cursor)) },
          { name: floorName, role: 'floor', params: { ...params, series: 'keyset floor' }, unit: 'pages/s', run: () => floor.keysetPage(position) },
          { name: `${at} · OFFSET floor`, role: 'floor', params: { ...params, series: 'OFFSET floor' }, unit: 'pages/s', run: () => floor.offsetPage(depth) },
        );
      }
    }
    const cases = await measure(pageCases, pageTiming(tiny), options.progress);
    return { suite: 'journey-paging', title: `Journey paging (GET /v1/people/{id}/events, 100 per page, in-process, ${backendLabel(options)})`, cases, targets: journeyTargets(cases, largest.events, deep) };
  } finally {
    for (const floor of floors) await floor.close();
    await api.close();
  }
}

/** A deep page and the last page of the largest journey (the one the depth chart shows), each ≤ 1.2× its first page. */
export function journeyTargets(cases: CaseResult[], events: number, deep: number): TargetResult[] {
  const at = (depth: number) => {
    const found = cases.find((c) => c.params?.chart === 'depth' && c.params.depth === depth && c.params.series === 'api.fetch');
    if (!found) throw new Error(`no api.fetch case at depth ${depth}`);
    return found;
  };
  const first = at(0);
  const depth = Math.min(deep, lastDepth(events));
  return [
    timeTarget(`page at depth ${depth.toLocaleString('en')} of the ${size(events)} journey ≤ 1.2× its first page`, at(depth), first, 1.2),
    timeTarget(`last page of the ${size(events)} journey ≤ 1.2× its first page`, at(lastDepth(events)), first, 1.2),
  ];
}
