/**
 * People and companies paging: a page of 100 through `api.fetch`, unfiltered and with each filter,
 * with the account key and with a domain-scoped key, each beside its naive floor (people-floor.ts).
 */
import { BENCH_ANCHOR } from '../data.ts';
import type { SuiteResult } from '../results.ts';
import { getText, openBenchApi } from './paging-api.ts';
import { measure, pageTiming, type PagingCase } from './paging-bench.ts';
import { backendLabel, benchDatabaseOf, openListFloor } from './floors.ts';
import type { ListRequest } from './people-floor.ts';
import { assertSameData, type SuiteOptions } from './suite.ts';

const PAGE = 100;
const DAY = 86_400;

/** One list request, as a query string for the API and as a request for the floor. */
interface Variant {
  label: string;
  query: string;
  floor: Omit<ListRequest, 'list' | 'scopeDomain'>;
}

/** The filters measured; the domain and client filters name demo sites with a subdomain each. */
function variants(list: ListRequest['list'], scoped: boolean): Variant[] {
  const after = BENCH_ANCHOR / 1000 - 30 * DAY;
  const afterDate = new Date(after * 1000).toISOString().slice(0, 10);
  const all: Variant[] = [
    { label: 'no filter', query: '', floor: {} },
    { label: 'domain=acme-example.com', query: '&domain=acme-example.com', floor: { domain: 'acme-example.com' } },
    { label: 'client_ref=globex', query: '&client_ref=globex', floor: { clientRef: 'globex' } },
    // A date-only value is midnight UTC, so the floor's bound is that midnight.
    { label: `last_seen_after=${afterDate}`, query: `&last_seen_after=${afterDate}`, floor: { lastSeenAfter: Date.parse(afterDate) / 1000 } },
    { label: 'hot_leads=true', query: '&hot_leads=true', floor: { hotLeads: true } },
  ];
  // With a scoped key, site filters only narrow its ceiling; the suite measures the key unfiltered.
  return all.filter((v) => (list === 'people' || !v.floor.hotLeads) && (!scoped || (v.floor.domain === undefined && v.floor.clientRef === undefined)));
}

/** Runs the suite: people and companies, account key and scoped key, every filter. */
export async function peoplePagingSuite(options: SuiteOptions): Promise<SuiteResult> {
  const { data, tiny } = options;
  const api = await openBenchApi(benchDatabaseOf(options));
  const floor = await openListFloor(options);
  try {
    const cases: PagingCase[] = [];
    for (const list of ['people', 'companies'] as const) {
      for (const scoped of [false, true]) {
        const key = scoped ? data.scopedKey.key : data.accountKey;
        const keyLabel = scoped ? `scoped key (${data.scopedKey.domain})` : 'account key';
        for (const v of variants(list, scoped)) {
          const request: ListRequest = { list, ...v.floor, ...(scoped ? { scopeDomain: data.scopedKey.domain } : {}) };
          const path = `/v1/${list}?limit=${PAGE}${v.query}`;
          const at = `${list}, ${keyLabel}, ${v.label}`;
          const ours = await getText(api, key, path);
          assertSameData(ours, await floor.page(request), at);
          if ((JSON.parse(ours) as { data: unknown[] }).data.length === 0) throw new Error(`${at} selects nobody: the benchmark would measure an empty page`);
          const params = { list, key: scoped ? 'scoped' : 'account', filter: v.label };
          cases.push(
            { name: `${at} · api.fetch`, role: 'ours', params: { ...params, floor: `${at} · keyset floor` }, perCall: 1, unit: 'pages/s', run: () => getText(api, key, path) },
            { name: `${at} · keyset floor`, role: 'floor', params, perCall: 1, unit: 'pages/s', run: () => floor.page(request) },
          );
        }
      }
    }
    return {
      suite: 'people-paging',
      title: `People and companies paging (first page of 100, in-process, ${backendLabel(options)})`,
      cases: await measure(cases, pageTiming(tiny), options.onCase),
      targets: [],
    };
  } finally {
    await floor.close();
    await api.close();
  }
}
