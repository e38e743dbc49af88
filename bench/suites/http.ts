/**
 * HTTP suite: requests per second and p50/p99 latency of two pages over loopback, a page of 100
 * events (a journey) and the first page of 100 people (account key, no filter), through our Node,
 * Bun and Deno adapters, each against a bare naive server of the same runtime
 * (bench/servers/naive-*.ts: the runtime's server and SQLite driver, the same keyset queries,
 * rows → objects → JSON.stringify, no auth). autocannon drives the load from its own process;
 * servers and load generator are pinned to different cores where `taskset` allows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaseResult, SuiteResult, TargetResult } from '../results.ts';
import { target } from '../results.ts';
import { canPin, inProcessTest, loadTest, RUNTIMES, runtimeCommand, runtimeMissing, startServer, stopAll, type ChildServer, type Runtime } from '../servers/control.ts';
import type { InProcessResult } from '../servers/in-process.ts';
import { cpuBetween, type CpuTime } from '../servers/cpu-time.ts';
import type { LoadRequest, LoadResult } from '../servers/load.ts';
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

/** A load run, with the CPU time its server used during it (warm-up included) where that can be read. */
export type ServerLoad = LoadResult & { cpu?: CpuTime };

/** A load run against `server`, reading the server's CPU time before and after it. */
export async function loadOn(server: ChildServer, request: LoadRequest): Promise<ServerLoad> {
  const before = server.cpuTime();
  const result = await loadTest(request);
  const cpu = cpuBetween(before, server.cpuTime());
  return cpu ? { ...result, cpu } : result;
}

/** The server's CPU a request over runs that all read it (warm-ups included in both), in µs. */
function cpuPerRequest(runs: ServerLoad[]): CaseResult['serverCpuUs'] {
  if (runs.length === 0 || runs.some((r) => r.cpu === undefined)) return undefined;
  const requests = runs.reduce((n, r) => n + r.requests + r.warmupRequests, 0);
  const us = (pick: (cpu: CpuTime) => number) => Math.round((runs.reduce((n, r) => n + pick(r.cpu!), 0) / requests) * 1e7) / 10;
  return { user: us((c) => c.user), system: us((c) => c.system) };
}

/** Rounds of one server folded into one case: throughput over all rounds, the median round's percentiles. */
export function foldRounds(name: string, role: CaseResult['role'], runs: ServerLoad[], params: CaseResult['params']): CaseResult {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const serverCpuUs = cpuPerRequest(runs);
  return {
    name,
    role,
    perSecond: requests / seconds,
    unit: 'req/s',
    medianMs: middle(runs.map((r) => r.p50Ms)),
    p99Ms: middle(runs.map((r) => r.p99Ms)),
    samples: requests,
    params,
    ...(serverCpuUs ? { serverCpuUs } : {}),
  };
}

/** Fetches a page from both servers and checks they serve the same body (the comparison is only fair if so); our body. */
async function samePage(ours: ChildServer, floor: ChildServer, path: string, accountKey: string): Promise<string> {
  const get = async (server: ChildServer, headers: Record<string, string>) => {
    const res = await fetch(server.url + path, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${server.name}: GET ${path} answered ${res.status}: ${text}`);
    return text;
  };
  const [a, b] = await Promise.all([get(ours, { 'x-api-key': accountKey }), get(floor, {})]);
  assertSameData(a, b, `${floor.name} against ${ours.name}, ${path}`);
  return a;
}

/**
 * What the profiles show when a target is missed (each adapter's server profiled under autocannon,
 * 2026-11-25). On Node the listener hands the core a CoreRequest and writes its Reply (no Fetch
 * objects); Bun and Deno run the same core behind their native Fetch servers.
 */
const PROFILE_NOTE =
  'Profile (the Bun server, people page, 2026-11-25): SQLite ~45% (the page query reads 100 stored ~1 KB JSON texts, turned into JS strings and, being non-ASCII, back into UTF-8 by the Response ~8%), the server writing ~28%, our own JS ~10% (the page join ~5%); the naive server builds the same bytes from plain columns with the runtime\'s native JSON.stringify, with no key, no rate limit, no cursor signature';
const MISSED_NOTE: Record<Runtime, string> = {
  node: `${PROFILE_NOTE}; Node's listener runs the same core, handing it a CoreRequest and writing its Reply (no Fetch objects)`,
  bun:
    `${PROFILE_NOTE}; Bun runs the same core (its server's translation is native); the page's stored JSON is read as text, as on every runtime. ` +
    "Why ours spent more system time a request than the bare server (traced 2026-11-28, Bun 1.4.5): Bun sends a response that completes after the turn its request arrived in uncorked, each piece of the status line and headers and then the body in a send() of its own (oven-sh/bun PR #41341, open), and ours completed a turn later, when the turn's rate-limit count was written (one statement for every request of the turn). " +
    'Under strace a people page left in ~27 send()s, against one for a response returned at once; a bare Bun server answering the same bytes a turn late used ~135 µs more CPU a request. ' +
    "Counting each request at once lets Bun send the page in one write (system time 80-95 -> 39-44 µs a request) but commits once a request (user time +65-100 µs), a net loss; Bun's node:http sends in one write too but costs as much more in user time. " +
    'Since then most requests take a rate-limit place counted ahead by an earlier count (core/limits/rate-limiter.ts) and complete in their own turn: system time 74-81 -> 34-37 µs a request in three interleaved pairs',
  deno: `${PROFILE_NOTE}; Deno runs the same core (its server's translation is native)`,
};

/** Each server's CPU a request, user + system, where it was read (Linux): by label, e.g. `ours`. */
function cpuNote(servers: Record<string, CaseResult | undefined>): string {
  const each = Object.entries(servers).flatMap(([label, c]) => (c?.serverCpuUs ? [`${label} ${c.serverCpuUs.user.toFixed(0)} + ${c.serverCpuUs.system.toFixed(0)}`] : []));
  return each.length ? `Server CPU a request, user + system µs (warm-ups included): ${each.join('; ')}. ` : '';
}

/** The pages each runtime serves under load: the journey page first (the chart shows it), then the people page. */
const PAGES = [
  // For each page a server doing nothing is measured too, and the page's work with no server at
  // all: together they tell HTTP's own limit from ours. The events page's since its naive floor
  // seeks the person through the index (2026-11-29): Bun's then came near that limit.
  { page: 'events', label: 'page of 100 events', path: (personId: string) => `/v1/people/${encodeURIComponent(personId)}/events?limit=100` },
  { page: 'people', label: 'page of 100 people', path: () => '/v1/people?limit=100' },
] as const;

/** A bare server of the runtime answering `body` from memory, and how to stop it and remove its file. */
export async function startBare(runtime: Runtime, body: string): Promise<{ server: ChildServer; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-body-'));
  const file = join(dir, 'body.json');
  writeFileSync(file, body);
  const server = await startServer(`bare ${runtime} server`, runtimeCommand(runtime, 'bench/servers/static-body.ts').concat(file));
  const stop = async () => {
    await stopAll([server]);
    rmSync(dir, { recursive: true, force: true });
  };
  return { server, stop };
}

/**
 * Where a bound in req/s stands against the ceiling, a bare server answering the same body from
 * memory: beyond it, out of HTTP's reach here; below it, the server time a page would have left
 * (one core serves the server, so a request's share of it is 1 / its rate).
 */
export function ceilingNote(bound: string, needed: number, ceiling: CaseResult, server: string): string {
  const served = `A bare ${server} answering the same body from memory, doing no work at all, served ${ceiling.perSecond!.toFixed(0)} req/s in this run; ${bound} is ${needed.toFixed(0)} req/s`;
  if (needed >= ceiling.perSecond!) return `${served}, more than that: the bound is out of reach on this machine, set by loopback HTTP and the load generator. `;
  const leftUs = 1e6 / needed - 1e6 / ceiling.perSecond!;
  return `${served}, which would leave ~${leftUs.toFixed(0)} µs of server time a page beyond a server doing nothing. `;
}

/** In-process rounds of one page folded into one case: requests/s over all rounds. */
export function foldInProcess(name: string, runs: InProcessResult[], params: CaseResult['params']): CaseResult {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  return { name, role: 'floor', perSecond: requests / runs.reduce((n, r) => n + r.seconds, 0), unit: 'req/s', samples: requests, params };
}

/**
 * Whether a bound in req/s is beyond what the page's own work allows: the runtime's adapter
 * answering the page in-process, as many requests in flight, no HTTP. One core runs a server's
 * JavaScript, SQLite and HTTP alike, so over HTTP the same process serves fewer, never more.
 * With `pinnedCeiling` (the bare server's case, its CPU read while pinned to that one core), the
 * work and HTTP are judged together too: the page's work a page and the CPU the bare server spent
 * a request on HTTP alone must both fit in the time a request has at the bound.
 */
export function workNote(bound: string, needed: number, work: CaseResult, runtime: string, pinnedCeiling?: CaseResult): string {
  const did = `Answering the page in-process, with no HTTP at all and as many requests in flight, the ${runtime} adapter served ${work.perSecond!.toFixed(0)} pages/s in the same rounds (bench/servers/in-process.ts, on the server's core)`;
  if (needed > work.perSecond!) return `${did}: ${bound} (${needed.toFixed(0)} req/s) is beyond what the page's own work allows one server process on this machine, whatever HTTP costs: out of reach. `;
  const http = pinnedCeiling?.serverCpuUs;
  if (!http) return `${did}: ${bound} (${needed.toFixed(0)} req/s) is within the work's reach; what stands in the way is the work and HTTP together. `;
  const workUs = 1e6 / work.perSecond!;
  const httpUs = http.user + http.system;
  const hasUs = 1e6 / needed;
  const together = `the page's work (~${workUs.toFixed(0)} µs a page) and the CPU the bare server spent a request on HTTP alone (~${httpUs.toFixed(0)} µs) come to ~${(workUs + httpUs).toFixed(0)} µs of the server's one core, against ~${hasUs.toFixed(0)} µs a request at ${bound} (${needed.toFixed(0)} req/s)`;
  if (workUs + httpUs > hasUs) return `${did}: within the work's reach alone, but ${together}: out of reach. `;
  return `${did}: ${together}, within reach. `;
}

export async function httpSuite(options: SuiteOptions): Promise<SuiteResult> {
  const plan = options.tiny ? TINY_LOAD : DEFAULT_LOAD;
  const { path: db, accountKey, largest } = options.data;
  const cases: CaseResult[] = [];
  const targets: TargetResult[] = [];
  const skipped: string[] = [];
  const pinned = canPin();
  if (!pinned) skipped.push('core pinning: taskset or a second core missing, so server and load generator share the cores');

  for (const runtime of RUNTIMES) {
    const missing = runtimeMissing(runtime);
    if (missing) {
      skipped.push(missing);
      continue;
    }
    let ours: ChildServer | undefined;
    let floor: ChildServer | undefined;
    try {
      ours = await startServer(`${runtime} adapter`, runtimeCommand(runtime, 'bench/servers/api.ts').concat(db));
      floor = await startServer(`naive ${runtime} server`, runtimeCommand(runtime, `bench/servers/naive-${runtime}.ts`).concat(db));
      for (const { page, label, path: pathOf } of PAGES) {
        const path = pathOf(largest.personId);
        const body = await samePage(ours, floor, path, accountKey);
        const bare = await startBare(runtime, body);
        const runs: Record<'ours' | 'floor' | 'ceiling', ServerLoad[]> = { ours: [], floor: [], ceiling: [] };
        const inProcess: InProcessResult[] = [];
        const load = { connections: plan.connections, seconds: plan.seconds, amount: plan.amount, warmupSeconds: plan.warmupSeconds };
        try {
          for (let round = 0; round < plan.rounds; round++) {
            runs.ours.push(await loadOn(ours, { ...load, url: ours.url + path, headers: { 'x-api-key': accountKey } }));
            runs.floor.push(await loadOn(floor, { ...load, url: floor.url + path }));
            runs.ceiling.push(await loadOn(bare.server, { ...load, url: bare.server.url + path }));
            inProcess.push(await inProcessTest(runtime, db, { ...load, path, key: accountKey }));
          }
        } finally {
          await bare.stop();
        }
        const params = { runtime, page, connections: plan.connections };
        const mine = foldRounds(`${label} over HTTP (${runtime} adapter)`, 'ours', runs.ours, params);
        const naive = foldRounds(`${label} over HTTP (naive ${runtime} server)`, 'floor', runs.floor, params);
        cases.push(mine, naive);
        const ceiling = foldRounds(`${label} over HTTP (bare ${runtime} server, the body from memory: the ceiling)`, 'floor', runs.ceiling, { ...params, series: 'ceiling' });
        const work = foldInProcess(`${label} in-process (${runtime} adapter, no HTTP: the work's own limit)`, inProcess, { ...params, series: 'in-process' });
        cases.push(ceiling, work);
        targets.push(
          target(
            `${runtime} adapter serves ≥ 1.5× the req/s of a naive ${runtime} server (${label})`,
            mine.perSecond!,
            naive.perSecond!,
            1.5,
            'at-least',
            `${runtime}: ${mine.perSecond!.toFixed(0)} vs ${naive.perSecond!.toFixed(0)} req/s (p50 ${mine.medianMs!.toFixed(2)} vs ${naive.medianMs!.toFixed(2)} ms). ${cpuNote({ ours: mine, naive, bare: ceiling })}${ceilingNote('1.5× the naive server', 1.5 * naive.perSecond!, ceiling, `${runtime} server`)}${workNote('1.5× the naive server', 1.5 * naive.perSecond!, work, runtime, pinned ? ceiling : undefined)}${MISSED_NOTE[runtime]}.`,
          ),
        );
      }
    } finally {
      await stopAll([ours, floor]);
    }
  }
  return { suite: 'http', title: 'HTTP: a page of 100 events and a page of 100 people over loopback, per runtime', cases, targets, ...(skipped.length ? { skipped } : {}) };
}
