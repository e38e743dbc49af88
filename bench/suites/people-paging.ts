/**
 * People and companies paging: a page of 100 through `api.fetch`, unfiltered and with each filter,
 * with the account key, a domain-scoped key of one site and one over a domain and its subdomain,
 * each beside its naive floor (people-floor.ts); and a journey's page of 100 events, which a
 * people page is held to as well.
 */
import { BENCH_ANCHOR } from '../data.ts';
import { timeTarget, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { getText, openBenchApi } from './paging-api.ts';
import { measure, pageTiming, type PagingCase } from './paging-bench.ts';
import { backendLabel, benchDatabaseOf, openJourneyFloor, openListFloor } from './floors.ts';
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

/**
 * The filters measured; the first domain and the client filter name demo sites with a subdomain
 * each (about a third of the people visited them), the second a site few visited (about one in
 * twenty): a list that walks everyone and keeps those seen there reads twenty people a hit.
 */
function variants(list: ListRequest['list'], scoped: boolean): Variant[] {
  const after = BENCH_ANCHOR / 1000 - 30 * DAY;
  const afterDate = new Date(after * 1000).toISOString().slice(0, 10);
  const all: Variant[] = [
    { label: 'no filter', query: '', floor: {} },
    { label: 'domain=acme-example.com', query: '&domain=acme-example.com', floor: { domain: 'acme-example.com' } },
    { label: 'domain=partner-agency.example', query: '&domain=partner-agency.example', floor: { domain: 'partner-agency.example' } },
    { label: 'client_ref=globex', query: '&client_ref=globex', floor: { clientRef: 'globex' } },
    // A date-only value is midnight UTC, so the floor's bound is that midnight.
    { label: `last_seen_after=${afterDate}`, query: `&last_seen_after=${afterDate}`, floor: { lastSeenAfter: Date.parse(afterDate) / 1000 } },
    { label: 'hot_leads=true', query: '&hot_leads=true', floor: { hotLeads: true } },
  ];
  // With a scoped key, site filters only narrow its ceiling; the suite measures the key unfiltered.
  return all.filter((v) => (list === 'people' || !v.floor.hotLeads) && (!scoped || (v.floor.domain === undefined && v.floor.clientRef === undefined)));
}

/** Runs the suite: people and companies, account key and scoped keys, every filter, and a page of events. */
export async function peoplePagingSuite(options: SuiteOptions): Promise<SuiteResult> {
  const { data, tiny } = options;
  const api = await openBenchApi(benchDatabaseOf(options));
  const floor = await openListFloor(options);
  const journey = await openJourneyFloor(options, data.largest.personId);
  try {
    const cases: PagingCase[] = [];
    const keys: { key: string; label: string; domain?: string }[] = [
      { key: data.accountKey, label: 'account key' },
      ...[data.scopedKey, data.multiSiteKey].map((k) => ({ key: k.key, label: `scoped key (${k.domain})`, domain: k.domain })),
    ];
    for (const list of ['people', 'companies'] as const) {
      for (const { key, label: keyLabel, domain: scopeDomain } of keys) {
        const scoped = scopeDomain !== undefined;
        for (const v of variants(list, scoped)) {
          const request: ListRequest = { list, ...v.floor, ...(scoped ? { scopeDomain } : {}) };
          const path = `/v1/${list}?limit=${PAGE}${v.query}`;
          const at = `${list}, ${keyLabel}, ${v.label}`;
          const ours = await getText(api, key, path);
          assertSameData(ours, await floor.page(request), at);
          if ((JSON.parse(ours) as { data: unknown[] }).data.length === 0) throw new Error(`${at} selects nobody: the benchmark would measure an empty page`);
          const params = { list, key: scoped ? `scoped ${scopeDomain}` : 'account', filter: v.label };
          cases.push(
            { name: `${at} · api.fetch`, role: 'ours', params: { ...params, floor: `${at} · keyset floor` }, unit: 'pages/s', run: () => getText(api, key, path) },
            { name: `${at} · keyset floor`, role: 'floor', params, unit: 'pages/s', run: () => floor.page(request) },
          );
        }
      }
    }
    // The journey-paging suite's first page of the largest journey: a page of 100 events, beside its floor.
    const eventsPath = `/v1/people/${data.largest.personId}/events?limit=${PAGE}`;
    assertSameData(await getText(api, data.accountKey, eventsPath), await journey.keysetPage(null), 'events page');
    const eventsAt = `events, account key, page of the ${data.largest.events.toLocaleString('en')}-event journey`;
    cases.push(
      { name: `${eventsAt} · api.fetch`, role: 'ours', params: { list: 'events', floor: `${eventsAt} · keyset floor` }, unit: 'pages/s', run: () => getText(api, data.accountKey, eventsPath) },
      { name: `${eventsAt} · keyset floor`, role: 'floor', params: { list: 'events' }, unit: 'pages/s', run: () => journey.keysetPage(null) },
    );
    const measured = await measure(cases, pageTiming(tiny), options.progress);
    return {
      suite: 'people-paging',
      title: `People and companies paging (first page of 100, in-process, ${backendLabel(options)})`,
      cases: measured,
      targets: peopleTargets(measured, `${eventsAt} · api.fetch`),
    };
  } finally {
    await floor.close();
    await journey.close();
    await api.close();
  }
}

/** The account key's unfiltered people page ≤ 2× the page of 100 events measured in the same run. */
export function peopleTargets(cases: CaseResult[], eventsName: string): TargetResult[] {
  const events = cases.find((c) => c.name === eventsName)!;
  const plain = cases.find((c) => c.role === 'ours' && c.params?.list === 'people' && c.params.key === 'account' && c.params.filter === 'no filter')!;
  return [timeTarget('people page of 100 (account key, no filter) ≤ 2× a page of 100 events, both through api.fetch', plain, events, 2)];
}
