/**
 * People and companies paging: a page of 100 through `api.fetch`, unfiltered and with each filter,
 * with the account key, a domain-scoped key of one site and one over a domain and its subdomain,
 * each beside its naive floor (people-floor.ts); and a journey's page of 100 events, which a
 * people page is held to as well.
 */
import { BENCH_ACCOUNT, BENCH_ANCHOR, MULTI_SITE_DOMAIN } from '../data.ts';
import { target, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import type { Api } from '../../adapters/node/index.ts';
import { getText, openBenchApi } from './paging-api.ts';
import { measure, pageTiming, type PagingCase } from './paging-bench.ts';
import { backendLabel, benchDatabaseOf, onPostgres, openJourneyFloor, openListFloor } from './floors.ts';
import type { ListRequest } from './people-floor.ts';
import { leastParts, peopleFloorNote, peopleEventsNote } from './people-notes.ts';
import { passRatioNote } from './pass-ratios.ts';
import { PeopleSqlText } from './people-sql-text.ts';
import { assertSameData, type SuiteOptions } from './suite.ts';

const PAGE = 100;
const DAY = 86_400;

/** One list request, as a query string for the API and as a request for the floor. */
interface Variant {
  label: string;
  query: string;
  floor: Omit<ListRequest, 'list' | 'scopeDomain'>;
}

/** The unfiltered variant's floor request. */
const NO_FILTER: Variant['floor'] = {};

/**
 * The filters measured; the first domain and the client filter name demo sites with a subdomain
 * each (about a third of the people visited them), the second a site few visited (about one in
 * twenty): a list that walks everyone and keeps those seen there reads twenty people a hit.
 */
function variants(list: ListRequest['list'], scoped: boolean): Variant[] {
  const after = BENCH_ANCHOR / 1000 - 30 * DAY;
  const afterDate = new Date(after * 1000).toISOString().slice(0, 10);
  const all: Variant[] = [
    { label: 'no filter', query: '', floor: NO_FILTER },
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
  // SQLite's own page from stored text: on the SQLite bench file only.
  const sqlText = data.postgres === undefined ? new PeopleSqlText(data.path, BENCH_ACCOUNT) : undefined;
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
            { name: `${at} · api.fetch`, role: 'ours', params: { ...params, floor: `${at} · keyset floor` }, perCall: 1, unit: 'pages/s', run: () => getText(api, key, path) },
            { name: `${at} · keyset floor`, role: 'floor', params, perCall: 1, unit: 'pages/s', run: () => floor.page(request) },
          );
          if (sqlText && list === 'people' && !scoped && v.floor === NO_FILTER) cases.push(...await leastCases(api, key, at, params, ours, sqlText));
        }
      }
    }
    // The journey-paging suite's first page of the largest journey: a page of 100 events, beside its floor.
    const eventsPath = `/v1/people/${data.largest.personId}/events?limit=${PAGE}`;
    assertSameData(await getText(api, data.accountKey, eventsPath), await journey.keysetPage(null), 'events page');
    const eventsAt = `events, account key, page of the ${data.largest.events.toLocaleString('en')}-event journey`;
    cases.push(
      { name: `${eventsAt} · api.fetch`, role: 'ours', params: { list: 'events', floor: `${eventsAt} · keyset floor` }, perCall: 1, unit: 'pages/s', run: () => getText(api, data.accountKey, eventsPath) },
      { name: `${eventsAt} · keyset floor`, role: 'floor', params: { list: 'events' }, perCall: 1, unit: 'pages/s', run: () => journey.keysetPage(null) },
    );
    const measured = await measure(cases, pageTiming(tiny), options.onCase);
    return {
      suite: 'people-paging',
      title: `People and companies paging (first page of 100, in-process, ${backendLabel(options)})`,
      cases: measured,
      targets: peopleTargets(measured, `${eventsAt} · api.fetch`, onPostgres(options)),
    };
  } finally {
    await floor.close();
    await journey.close();
    sqlText?.close();
    await api.close();
  }
}

/**
 * The parts of the least a people page can cost through api.fetch, for the account's unfiltered
 * page: a page of one person through api.fetch (the request's own work: key, limit, cursor,
 * Response), and what 99 people more add at the least: their SQL with stored text (SQLite alone,
 * read as our adapter reads it). In-process nothing encodes the body: text() returns the string.
 */
async function leastCases(api: Api, key: string, at: string, params: Record<string, string>, ours: string, sqlText: PeopleSqlText): Promise<PagingCase[]> {
  const onePath = '/v1/people?limit=1';
  const one = await getText(api, key, onePath);
  assertSameData(ours, sqlText.firstPage(), `${at} (SQL + stored text)`);
  assertSameData(one, sqlText.firstPage(1), `${at}, page of 1 (SQL + stored text)`);
  const oneAt = at.replace('people,', 'people (page of 1),');
  return [
    { name: `${at} · SQL + stored text`, role: 'floor', params: { ...params, series: 'SQL text' }, perCall: 1, unit: 'pages/s', run: () => sqlText.firstPage() },
    { name: `${oneAt} · api.fetch`, role: 'floor', params: { ...params, series: 'request' }, perCall: 1, unit: 'pages/s', run: () => getText(api, key, onePath) },
    { name: `${oneAt} · SQL + stored text`, role: 'floor', params: { ...params, series: 'SQL text 1' }, perCall: 1, unit: 'pages/s', run: () => sqlText.firstPage(1) },
  ];
}

/**
 * Issue 17's P2 for people: every people page ≤ 0.6× its naive floor, and the account key's
 * unfiltered page ≤ 1.3× the page of 100 events measured in the same run. The notes follow the backend.
 */
function peopleTargets(cases: CaseResult[], eventsName: string, onPostgres: boolean): TargetResult[] {
  const byName = new Map(cases.map((c) => [c.name, c]));
  const events = byName.get(eventsName)!;
  const series = (name: string) => cases.find((c) => c.params?.series === name);
  const sqlText = series('SQL text');
  const least = leastParts(series);
  const people = cases.filter((c) => c.role === 'ours' && c.params?.list === 'people');
  const targets = people.map((c) => {
    const floor = byName.get(String(c.params!.floor))!;
    const note = peopleFloorNote(c, floor, events, sqlText, c.params!.key === `scoped ${MULTI_SITE_DOMAIN}`, onPostgres);
    return target(`people page of 100, ${c.params!.key}, ${c.params!.filter}: api.fetch ≤ 0.6× its naive floor`, c.medianMs!, floor.medianMs!, 0.6, 'at-most', note);
  });
  const plain = people.find((c) => c.params!.key === 'account' && c.params!.filter === 'no filter')!;
  targets.push(target('people page of 100 (account key, no filter) ≤ 1.3× a page of 100 events, both through api.fetch', plain.medianMs!, events.medianMs!, 1.3, 'at-most', passRatioNote(plain, events) + peopleEventsNote(plain, events, people, least, onPostgres)));
  return targets;
}
