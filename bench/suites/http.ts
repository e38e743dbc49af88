/**
 * HTTP suite: requests per second and p50/p99 latency of two pages over loopback, a page of 100
 * events (a journey) and the first page of 100 people (account key, no filter), through our Node,
 * Bun and Deno adapters, each against a bare naive server of the same runtime
 * (bench/servers/naive-*.ts: the runtime's server and SQLite driver, the same keyset queries,
 * rows → objects → JSON.stringify, no auth). autocannon drives the load from its own process;
 * servers and load generator are pinned to different cores where `taskset` allows.
 */
import { QUIET } from '../../scripts/progress.ts';
import { rateTarget, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { canPin, loadTest, RUNTIMES, runtimeCommand, runtimeMissing, startServer, stopAll, type ChildServer } from '../servers/control.ts';
import type { LoadResult } from '../servers/load.ts';
import { assertSameData, type SuiteOptions } from './suite.ts';

/** How hard and how long to load each server. Rounds alternate ours and the floor, so drift hits both alike. */
export interface LoadPlan {
  connections: number;
  seconds: number;
  /** A fixed number of requests instead of a duration (the tiny run: it proves the code works, it measures nothing). */
  amount?: number;
  warmupSeconds: number;
  rounds: number;
}

export const TINY_LOAD: LoadPlan = { connections: 2, seconds: 1, amount: 40, warmupSeconds: 0, rounds: 1 };
export const DEFAULT_LOAD: LoadPlan = { connections: 10, seconds: 5, warmupSeconds: 2, rounds: 3 };

/** Each adapter's req/s against its runtime's naive server, on every page. */
const ADAPTER_BOUND = 0.8;

/** Rounds of one server folded into one case: throughput over all rounds, the median round's percentiles. */
export function foldRounds(name: string, role: CaseResult['role'], runs: LoadResult[], params: CaseResult['params']): CaseResult {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { name, role, perSecond: requests / seconds, unit: 'req/s', medianMs: middle(runs.map((r) => r.p50Ms)), p99Ms: middle(runs.map((r) => r.p99Ms)), samples: requests, params };
}

/** Fetches a page from both servers and checks they serve the same body (the comparison is only fair if so). */
async function samePage(ours: ChildServer, floor: ChildServer, path: string, accountKey: string): Promise<void> {
  const get = async (server: ChildServer, headers: Record<string, string>) => {
    const res = await fetch(server.url + path, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${server.name}: GET ${path} answered ${res.status}: ${text}`);
    return text;
  };
  const [a, b] = await Promise.all([get(ours, { 'x-api-key': accountKey }), get(floor, {})]);
  assertSameData(a, b, `${floor.name} against ${ours.name}, ${path}`);
}

/** The pages each runtime serves under load: the journey page first (the chart shows it), then the people page. */
const PAGES = [
  { page: 'events', label: 'page of 100 events', path: (personId: string) => `/v1/people/${encodeURIComponent(personId)}/events?limit=100` },
  { page: 'people', label: 'page of 100 people', path: () => '/v1/people?limit=100' },
] as const;

export async function httpSuite(options: SuiteOptions): Promise<SuiteResult> {
  const plan = options.tiny ? TINY_LOAD : DEFAULT_LOAD;
  const progress = options.progress ?? QUIET;
  const { path: db, accountKey, largest } = options.data;
  const cases: CaseResult[] = [];
  const skipped: string[] = [];
  if (!canPin()) skipped.push('core pinning: taskset or a second core missing, so server and load generator share the cores');
  const runtimes = RUNTIMES.filter((runtime) => {
    const missing = runtimeMissing(runtime);
    if (missing) skipped.push(missing);
    return !missing;
  });
  progress.start(runtimes.length * PAGES.length * plan.rounds * 2);

  for (const runtime of runtimes) {
    let ours: ChildServer | undefined;
    let floor: ChildServer | undefined;
    try {
      ours = await startServer(`${runtime} adapter`, runtimeCommand(runtime, 'bench/servers/api.ts').concat(db));
      floor = await startServer(`naive ${runtime} server`, runtimeCommand(runtime, `bench/servers/naive-${runtime}.ts`).concat(db));
      for (const { page, label, path: pathOf } of PAGES) {
        const path = pathOf(largest.personId);
        await samePage(ours, floor, path, accountKey);
        const runs: Record<'ours' | 'floor', LoadResult[]> = { ours: [], floor: [] };
        const load = { connections: plan.connections, seconds: plan.seconds, amount: plan.amount, warmupSeconds: plan.warmupSeconds };
        for (let round = 0; round < plan.rounds; round++) {
          runs.ours.push(await loadTest({ ...load, url: ours.url + path, headers: { 'x-api-key': accountKey } }));
          progress.step(`${runtime}, ${label}`);
          runs.floor.push(await loadTest({ ...load, url: floor.url + path }));
          progress.step(`${runtime}, ${label}`);
        }
        const params = { runtime, page, connections: plan.connections };
        cases.push(foldRounds(`${label} over HTTP (${runtime} adapter)`, 'ours', runs.ours, params), foldRounds(`${label} over HTTP (naive ${runtime} server)`, 'floor', runs.floor, params));
      }
    } finally {
      await stopAll([ours, floor]);
    }
  }
  return { suite: 'http', title: 'HTTP: a page of 100 events and a page of 100 people over loopback, per runtime', cases, targets: httpTargets(cases), ...(skipped.length ? { skipped } : {}) };
}

/** Each adapter serves ≥ 0.8× the req/s of its runtime's naive server, on every page. */
export function httpTargets(cases: CaseResult[]): TargetResult[] {
  return cases
    .filter((c) => c.role === 'ours')
    .flatMap((ours) => {
      const { runtime, page } = ours.params!;
      const naive = cases.find((c) => c.role === 'floor' && c.params?.runtime === runtime && c.params?.page === page);
      return naive ? [rateTarget(`${runtime} adapter ≥ ${ADAPTER_BOUND}× the req/s of a naive ${runtime} server (page of 100 ${page})`, ours, naive, ADAPTER_BOUND)] : [];
    });
}
