import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../adapters/node/index.ts';
import { ALL_CHECKS, runConformance, summaryLine, type Flag, type HarnessConfig, type Report } from '../../harness/index.ts';
import { VARIANTS, type FetchHandler, type Variant } from './variants/index.ts';
import { renamedFilters } from './variants/renamed.ts';
import { fastClock, PACED_EXPORTS, pool, startServer } from './support.ts';

/**
 * The harness is itself tested: it must pass our real server, and fail every deliberately broken
 * variant of it (each breaks one rule of the spec). Every run gets its own freshly seeded server.
 *
 * To stay fast, a variant runs only the checks of its area (`only` prefixes); set
 * HARNESS_VARIANTS_FULL=1 to run every check against every variant instead. Destructive checks
 * run only for variants that need them, on a server whose exports are paced so that three can
 * be seen running; slow ones only for those that need them, on a server whose clock runs 120
 * times faster (900 s of server time in 7.5 s).
 */
const FULL = process.env.HARNESS_VARIANTS_FULL === '1';
const CONCURRENCY = Number(process.env.HARNESS_CONCURRENCY ?? 3);
const TIMEOUT = 300_000;

const idsFlagged = (flag: Flag) => ALL_CHECKS.filter((c) => c.flags?.includes(flag)).map((c) => c.id);

interface Run {
  report: Report;
  ms: number;
  faults: unknown[];
}

/** How the server is set up: the demo's people (150 by default), mounted under a prefix or not. */
interface Setup {
  people?: number;
  prefix?: string;
}

/** Seeds a fresh server (through `wrap` when given), runs the harness against it and stops it. */
async function conformance(config: Pick<HarnessConfig, 'only' | 'destructive' | 'slow' | 'profile'>, wrap?: (api: Api) => FetchHandler, setup: Setup = {}): Promise<Run> {
  const started = performance.now();
  const served = await startServer({ wrap, clock: config.slow ? fastClock() : undefined, exports: config.destructive ? PACED_EXPORTS : undefined, ...setup });
  try {
    const report = await runConformance({ baseUrl: served.baseUrl, accountKey: served.accountKey, scopedKeys: served.scopedKeys, accountKeys: served.accountKeys, ...config });
    return { report, ms: performance.now() - started, faults: served.faults };
  } finally {
    await served.close();
  }
}

/**
 * What a variant is run with. A slow variant runs only the slow checks: with the clock 120 times
 * faster, an hour (the rate window, a cursor's life) passes in 30 s, which other checks do not expect.
 */
function configFor(variant: Variant): Pick<HarnessConfig, 'only' | 'destructive' | 'slow'> {
  if (variant.slow) {
    const slow = idsFlagged('slow');
    return { slow: true, only: FULL ? slow : slow.filter((id) => variant.only.some((prefix) => id.startsWith(prefix))) };
  }
  return { destructive: variant.destructive ?? false, only: FULL ? undefined : variant.only };
}

const failedIn = (report: Report) => report.results.filter((r) => r.verdict === 'failed');
const describeFailures = (report: Report) => failedIn(report).map((r) => `  ${r.id}: ${r.detail}`).join('\n');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const REAL = {
  full: { name: 'a full run', config: {}, setup: {} },
  destructive: { name: 'a destructive run', config: { destructive: true }, setup: {} },
  slow: { name: 'a slow run on a fast clock', config: { slow: true, only: idsFlagged('slow') }, setup: {} },
  // docs/embedding.md's example: a handful of people, the API mounted under /api.
  few: { name: 'a full run over 3 people under a mounted base URL', config: {}, setup: { people: 3, prefix: '/api' } },
  fewDestructive: { name: 'a destructive run over 3 people under a mounted base URL', config: { destructive: true }, setup: { people: 3, prefix: '/api' } },
} as const satisfies Record<string, { name: string; config: Pick<HarnessConfig, 'only' | 'destructive' | 'slow'>; setup: Setup }>;

/** Valid implementations that chose other filter names: run with no profile, they must pass. */
const RENAMED = {
  probed: { name: 'filters named since and hot_only, unknown parameters ignored, no OpenAPI document', openapi: 'none' },
  documented: { name: 'filters named since and hot_only, named so in its OpenAPI document', openapi: 'renamed' },
} as const;
let renamedRuns: Record<keyof typeof RENAMED, Promise<Run>>;

let realRuns: Record<keyof typeof REAL, Promise<Run>>;
let variantRuns: Map<string, Promise<Run>>;

beforeAll(() => {
  // Everything starts now and each test awaits its own run. Slow runs mostly sleep on the
  // server's clock, so they start at once beside the pool; the rest go a few at a time.
  type Job = { key: string; slow: boolean; start: () => Promise<Run> };
  const jobs: Job[] = [
    { key: 'real:slow', slow: true, start: () => conformance(REAL.slow.config) },
    { key: 'real:full', slow: false, start: () => conformance(REAL.full.config) },
    { key: 'real:destructive', slow: false, start: () => conformance(REAL.destructive.config) },
    { key: 'real:few', slow: false, start: () => conformance(REAL.few.config, undefined, REAL.few.setup) },
    { key: 'real:fewDestructive', slow: false, start: () => conformance(REAL.fewDestructive.config, undefined, REAL.fewDestructive.setup) },
    ...(Object.keys(RENAMED) as (keyof typeof RENAMED)[]).map((which) => ({ key: `renamed:${which}`, slow: false, start: () => conformance({}, (api) => renamedFilters(api, { openapi: RENAMED[which].openapi })) })),
    ...VARIANTS.map((v) => ({ key: v.id, slow: v.slow ?? false, start: () => conformance(configFor(v), v.wrap) })),
  ];
  const byKey = new Map<string, Promise<Run>>();
  for (const job of jobs.filter((j) => j.slow)) byKey.set(job.key, job.start());
  const pooled = jobs.filter((j) => !j.slow);
  pool(pooled, CONCURRENCY, (job) => job.start()).forEach((run, i) => byKey.set(pooled[i]!.key, run));
  // A failure is reported by the test that awaits it; never as an unhandled rejection.
  for (const run of byKey.values()) run.catch(() => undefined);
  realRuns = Object.fromEntries(Object.keys(REAL).map((which) => [which, byKey.get(`real:${which}`)!])) as typeof realRuns;
  renamedRuns = Object.fromEntries(Object.keys(RENAMED).map((which) => [which, byKey.get(`renamed:${which}`)!])) as typeof renamedRuns;
  variantRuns = new Map(VARIANTS.map((v) => [v.id, byKey.get(v.id)!]));
});

describe('the harness against our real server', () => {
  it.each(Object.keys(REAL) as (keyof typeof REAL)[])('passes %s', async (which) => {
    const { report, ms, faults } = await realRuns[which];
    const skipped = report.results.filter((r) => (r.verdict === 'skipped' && !r.detail?.startsWith('not selected')) || r.verdict === 'n/a');
    console.log([`real server, ${REAL[which].name}: ${summaryLine(report)}, ${report.requests} requests, ${seconds(ms)}`, ...skipped.map((r) => `  ${r.verdict} ${r.id}: ${r.detail}`)].join('\n'));
    expect(failedIn(report), `checks failed against the real server:\n${describeFailures(report)}`).toEqual([]);
    expect(faults, 'the real server answered 500').toEqual([]);
    if (which === 'full' || which === 'few') expect(report.totals.passed).toBeGreaterThan(0);
    // With the default data every filter check has what it needs: none may be n/a.
    if (which === 'full') expect(report.results.filter((r) => r.verdict === 'n/a').map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
    // The destructive and slow runs must really exercise their checks, not skip them.
    if (which === 'destructive' || which === 'slow') {
      const flagged = report.results.filter((r) => r.flags.includes(which));
      expect(flagged.length, `no ${which} check exists`).toBeGreaterThan(0);
      expect(flagged.filter((r) => r.verdict !== 'passed').map((r) => `${r.id}: ${r.detail}`), `${which} checks that did not pass`).toEqual([]);
    }
  }, TIMEOUT);
});

describe('the harness against implementations that chose other filter names', () => {
  it.each(Object.keys(RENAMED) as (keyof typeof RENAMED)[])('passes %s, with no profile: 0 failures, the filters found and checked', async (which) => {
    const { report } = await renamedRuns[which];
    console.log(`${RENAMED[which].name}: ${summaryLine(report)}`);
    expect(failedIn(report), describeFailures(report)).toEqual([]);
    const verdicts = Object.fromEntries(report.results.filter((r) => /last-seen-after|hot-leads/.test(r.id)).map((r) => [r.id, r.verdict]));
    expect(verdicts).toEqual({
      'filters.people-last-seen-after': 'passed',
      'filters.companies-last-seen-after': 'passed',
      'filters.hot-leads': 'passed',
      'filters.last-seen-after-malformed-400': 'passed',
      'filters.hot-leads-malformed-400': 'passed',
    });
  }, TIMEOUT);
});

describe('a filter that changes nothing where it must', () => {
  const hotIgnored = (api: Api) => renamedFilters(api, { openapi: 'none', ignoreHotLeads: true });

  it('is n/a without a name to hold it to, naming the profile key; with the name in the profile it fails as ignored', async () => {
    const only = ['filters.hot-leads'];
    const [unnamed, named] = await Promise.all([conformance({ only }, hotIgnored), conformance({ only, profile: { hotLeadsParam: 'hot_only' } }, hotIgnored)]);
    const hot = (run: Run) => run.report.results.find((r) => r.id === 'filters.hot-leads')!;
    expect(hot(unnamed)).toMatchObject({ verdict: 'n/a', profileKey: 'hotLeadsParam' });
    expect(hot(unnamed).detail).toMatch(/none of the candidate names \(hot_leads, .*hot_only.*\) with true kept only hot leads/);
    expect(hot(named).verdict).toBe('failed');
    expect(hot(named).detail).toMatch(/^hot_only=true \(named by the profile\) is ignored: GET \/v1\/people\?hot_only=true returns all 150 people, though \d+ are hot leads$/);
  }, TIMEOUT);
});

describe('the harness against broken variants', () => {
  const table = new Map<string, string>();

  afterAll(() => {
    const rows = VARIANTS.map((v) => `| ${v.id} | ${v.rule.replace(/\|/g, '\\|')} | ${table.get(v.id) ?? '(not run)'} |`);
    const missed = VARIANTS.filter((v) => !table.has(v.id) || table.get(v.id)!.startsWith('**'));
    const footer = missed.length === 0 ? `All ${VARIANTS.length} variants caught.` : `Not caught: ${missed.map((v) => v.id).join(', ')}`;
    console.log([`Broken variants${FULL ? ' (every check)' : ' (the checks of their area)'}:`, '', '| variant | rule | caught by |', '|---|---|---|', ...rows, '', footer].join('\n'));
  });

  it('has at least 18 variants with distinct ids', () => {
    expect(VARIANTS.length).toBeGreaterThanOrEqual(18);
    expect(new Set(VARIANTS.map((v) => v.id)).size).toBe(VARIANTS.length);
  });

  it.each(VARIANTS.map((v) => [v.id, v] as const))('catches %s', async (_id, variant) => {
    let run: Run;
    try {
      run = await variantRuns.get(variant.id)!;
    } catch (error) {
      table.set(variant.id, `**run crashed**: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
    const caught = failedIn(run.report).map((r) => r.id);
    const ran = run.report.results.filter((r) => r.verdict !== 'skipped').length;
    table.set(variant.id, caught.length > 0 ? caught.join(', ') : `**NOT CAUGHT** (${ran === 0 ? 'no selected check ran' : `${ran} checks ran, none failed`})`);
    expect(caught, `no check caught ${variant.id} (${variant.rule}); ${summaryLine(run.report)} with ${JSON.stringify(configFor(variant))}`).not.toEqual([]);
  }, TIMEOUT);
});
