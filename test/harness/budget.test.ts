import { afterEach, describe, expect, it } from 'vitest';
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { runConformance, summaryLine, type Report } from '../../harness/index.ts';
import { seedAccount, startServer, type Served } from './support.ts';

/**
 * The harness plans its run against the server's hourly budget: it reads X-RateLimit-Remaining
 * first, stops with one message (or waits) when the budget is short, and never reports a 429 it
 * did not ask for as the server's failure.
 */
const TIMEOUT = 120_000;
/** The spec's 1,000 is what these servers depart from on purpose: that one check may fail, nothing else. */
const LIMIT_CHECK = 'limits.account-hourly-limit';

const failures = (report: Report) => report.results.filter((r) => r.verdict === 'failed');
const unexpected = (report: Report) => failures(report).filter((r) => r.id !== LIMIT_CHECK || /429/.test(r.detail ?? ''));
const describeFailures = (report: Report) => failures(report).map((r) => `${r.id}: ${r.detail}`).join('\n');

let served: Served | undefined;
let api: Api | undefined;
afterEach(async () => {
  await served?.close();
  await api?.close();
  served = api = undefined;
});

/** An in-process fetch to an API, optionally bending each response. */
function inProcess(target: Api, bend: (response: Response, n: number) => Response = (r) => r): typeof fetch {
  let n = 0;
  return async (input, init) => bend(await target.fetch(new Request(input, init)), ++n);
}

describe('budget planning', () => {
  it('three runs in a row on a 600-request hour: two complete, the third stops with one message; no 429 is ever a failure', async () => {
    served = await startServer({ rateLimits: { accountPerHour: 600 } });
    const config = { baseUrl: served.baseUrl, accountKey: served.accountKey, scopedKeys: served.scopedKeys };
    const runs: Report[] = [];
    for (let i = 0; i < 3; i++) runs.push(await runConformance(config));
    for (const [i, run] of runs.entries()) expect(unexpected(run), `run ${i + 1}: ${summaryLine(run)}\n${describeFailures(run)}`).toEqual([]);
    expect(runs[0]!.stopped).toBeUndefined();
    expect(runs[1]!.stopped).toBeUndefined();
    const third = runs[2]!;
    expect(third.stopped).toMatch(/^Not started: the run needs about \d+ requests but the server allows \d+ more this hour; .*--wait-for-budget/);
    expect(third.requests, 'the third run sends only its budget probe').toBe(1);
    expect(third.results.every((r) => r.verdict === 'skipped')).toBe(true);
    // The plan covers what a run really sends.
    expect(runs[0]!.plan!.needed).toBeGreaterThanOrEqual(runs[0]!.requests);
  }, TIMEOUT);

  it('says when the window reopens when the budget is spent (Retry-After of the probe\'s 429)', async () => {
    const clock = new ManualClock();
    api = await createApi({ database: ':memory:', clock, rateLimits: { accountPerHour: 5 } });
    const { accountKey } = await seedAccount(api, 'acc_demo', { people: 20 });
    for (let i = 0; i < 5; i++) await api.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': accountKey } }));
    const report = await runConformance({ baseUrl: 'http://api.test', accountKey, scopedKeys: [], fetch: inProcess(api) });
    expect(report.stopped).toMatch(/the server allows 0 more this hour; the window reopens in \d+ s \(\d{4}-\d\d-\d\dT[^)]+\) per Retry-After/);
  }, TIMEOUT);

  it('with --wait-for-budget, waits for the window to reopen and then runs', async () => {
    const clock = new ManualClock();
    api = await createApi({ database: ':memory:', clock, rateLimits: { accountPerHour: 400 } });
    const { accountKey } = await seedAccount(api, 'acc_demo', { people: 20 });
    for (let i = 0; i < 350; i++) await api.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': accountKey } }));
    const waits: string[] = [];
    const report = await runConformance({
      baseUrl: 'http://api.test',
      accountKey,
      scopedKeys: [],
      only: ['auth.', 'paging.'],
      fetch: inProcess(api),
      waitForBudget: true,
      // The harness sleeps on the server's clock: each wait moves it instead of passing real time.
      sleep: async (ms) => clock.advance(ms / 1000),
      onWait: (message) => waits.push(message),
    });
    expect(report.stopped).toBeUndefined();
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]).toMatch(/^Waiting: the run needs about \d+ requests but the server allows \d+ more this hour/);
    expect(report.totals.passed).toBeGreaterThan(0);
    expect(failures(report)).toEqual([]);
  }, TIMEOUT);

  it('skips, never fails, the checks that meet a 429 the harness did not ask for, and sends nothing more once the budget is spent', async () => {
    api = await createApi({ database: ':memory:', rateLimits: { accountPerHour: 120 } });
    const { accountKey, scopedKeys } = await seedAccount(api, 'acc_demo', { people: 150 });
    // The probe's answer hides X-RateLimit-Remaining, so the plan cannot see the budget is short.
    const hideFirst = (response: Response, n: number) => {
      if (n !== 1) return response;
      const headers = new Headers(response.headers);
      headers.delete('x-ratelimit-remaining');
      return new Response(response.body, { status: response.status, headers });
    };
    const report = await runConformance({ baseUrl: 'http://api.test', accountKey, scopedKeys, fetch: inProcess(api, hideFirst) });
    expect(unexpected(report), describeFailures(report)).toEqual([]);
    const spent = report.results.filter((r) => r.verdict === 'skipped' && /hourly request budget ran out/.test(r.detail ?? ''));
    expect(spent.length).toBeGreaterThan(1);
    expect(spent[0]!.detail).toMatch(/answered 429, Retry-After \d+ s\): not the server's failure/);
    expect(spent.slice(1).every((r) => r.requests === 0), 'checks after the 429 send nothing').toBe(true);
  }, TIMEOUT);

  it('sends no more than --max-requests, skipping the checks past it', async () => {
    api = await createApi({ database: ':memory:' });
    const { accountKey, scopedKeys } = await seedAccount(api, 'acc_demo', { people: 150 });
    const report = await runConformance({ baseUrl: 'http://api.test', accountKey, scopedKeys, fetch: inProcess(api), maxRequests: 40 });
    expect(report.requests).toBe(40);
    expect(failures(report), describeFailures(report)).toEqual([]);
    const capped = report.results.filter((r) => r.detail === 'not run: --max-requests 40 reached');
    expect(capped.length).toBeGreaterThan(10);
    expect(report.totals.passed).toBeGreaterThan(0);
  }, TIMEOUT);

  it('judges nothing when no request gets an answer: one message naming the URL, every check skipped', async () => {
    const refused: typeof fetch = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    };
    const report = await runConformance({ baseUrl: 'http://127.0.0.1:1', accountKey: 'k', scopedKeys: [], fetch: refused });
    expect(report.stoppedBy).toBe('unreachable');
    expect(report.stopped).toBe('Cannot reach the server at http://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1; nothing was checked. Start the server, or check --base-url.');
    expect(report.totals).toEqual({ passed: 0, failed: 0, skipped: report.results.length, 'n/a': 0 });
    // The budget probe, then the health check that tells an absent server from a broken /v1/stats.
    expect(report.requests).toBe(2);
  });

  it('runs on when only /v1/stats goes unanswered: a server that is there is for the checks to judge', async () => {
    api = await createApi({ database: ':memory:' });
    const { accountKey, scopedKeys } = await seedAccount(api, 'acc_demo', { people: 20 });
    const base = inProcess(api);
    const statsDrops: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/v1/stats')) throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      return base(input, init);
    };
    const report = await runConformance({ baseUrl: 'http://api.test', accountKey, scopedKeys, fetch: statsDrops, only: ['auth.'] });
    expect(report.stopped).toBeUndefined();
    expect(report.totals.passed + report.totals.failed).toBeGreaterThan(0);
  }, TIMEOUT);
});
