import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetLine } from '../../bench/report/figures.ts';
import { writeReadme } from '../../bench/report/markdown.ts';
import type { BenchRun, CaseResult } from '../../bench/results.ts';
import { exportTargets } from '../../bench/suites/export.ts';
import { httpTargets } from '../../bench/suites/http.ts';
import { journeyTargets } from '../../bench/suites/journey-paging.ts';
import { peerTargets } from '../../bench/suites/peer.ts';
import { peopleTargets } from '../../bench/suites/people-paging.ts';
import { statsTargets } from '../../bench/suites/stats-companies.ts';

const ours = (medianMs: number, params: CaseResult['params'], extra: Partial<CaseResult> = {}): CaseResult => ({ name: JSON.stringify(params), role: 'ours', medianMs, samples: 1, params, ...extra });
const floor = (c: CaseResult, extra: Partial<CaseResult>): CaseResult => ({ ...c, name: `${c.name} floor`, role: 'floor', ...extra });
const lines = (targets: { goal: string; met: boolean }[]) => targets.map((t) => `${t.met ? 'met' : 'missed'} ${t.goal}`);

describe('the targets a full run judges', () => {
  it('holds a deep and the last journey page to 1.2× the first', () => {
    const page = (depth: number, ms: number) => ours(ms, { chart: 'depth', series: 'api.fetch', depth });
    const targets = journeyTargets([page(0, 1), page(10_000, 1.19), page(49_900, 1.21)], 50_000, 10_000);
    expect(lines(targets)).toEqual(['met page at depth 10,000 of the 50k journey ≤ 1.2× its first page', 'missed last page of the 50k journey ≤ 1.2× its first page']);
  });

  it('holds the unfiltered people page to 2× the events page', () => {
    const events = { ...ours(1, { list: 'events' }), name: 'events' };
    const [people] = peopleTargets([events, ours(1.9, { list: 'people', key: 'account', filter: 'no filter' })], 'events');
    expect([people!.ratio, people!.met, people!.bound]).toEqual([1.9, true, 2]);
  });

  it('holds every adapter to 0.8× its naive server on every page', () => {
    const adapter = (runtime: string, page: string, perSecond: number) => ours(1, { runtime, page }, { perSecond, unit: 'req/s' });
    const cases = [adapter('node', 'events', 800), adapter('bun', 'people', 790)];
    const targets = httpTargets([...cases, ...cases.map((c) => floor(c, { perSecond: 1000 }))]);
    expect(lines(targets)).toEqual(['met node adapter ≥ 0.8× the req/s of a naive node server (page of 100 events)', 'missed bun adapter ≥ 0.8× the req/s of a naive bun server (page of 100 people)']);
  });

  it('holds exports to 0.4× the shell at every size, and to less than 64 MB of growth at the largest', () => {
    const run = (people: number, perSecond: number, peakMb: number) => ours(1, { people }, { perSecond, peakMb, unit: 'rows/s' });
    const cases = [run(100_000, 40, 70), run(1_000_000, 39, 63)];
    const targets = exportTargets([...cases, ...cases.map((c) => ({ ...floor(c, { perSecond: 100 }), role: 'peer' as const }))], 'peer', 'the sqlite3 shell');
    expect(lines(targets)).toEqual([
      "met export of 100,000 people ≥ 0.4× the sqlite3 shell's rows/s",
      "missed export of 1,000,000 people ≥ 0.4× the sqlite3 shell's rows/s",
      'met export of 1,000,000 people: peak memory growth < 64 MB',
    ]);
  });

  it('holds a year of stats to 2× a day, and each deep companies page to 1.2× its first', () => {
    const targets = statsTargets([
      ours(1, { list: 'stats', key: 'account', days: 1 }),
      ours(2.1, { list: 'stats', key: 'account', days: 365 }),
      ours(1, { list: 'companies', key: 'account', depth: 0 }),
      ours(1.1, { list: 'companies', key: 'account', depth: 10_000 }),
    ]);
    expect(lines(targets)).toEqual(['missed GET /v1/stats?days=365 ≤ 2× days=1 (account key)', 'met companies page at depth 10,000 ≤ 1.2× the first page (account key)']);
  });

  it('holds our people pages to 100× json-server from 100,000 people on, and judges smaller lists not at all', () => {
    const page = (people: number) => ours(1, { page: 1, people }, { perSecond: 1000, unit: 'req/s' });
    const peer = (people: number): CaseResult => ({ ...page(people), role: 'peer', perSecond: 9 });
    expect(lines(peerTargets([page(100_000), peer(100_000)]))).toEqual(["met people page 1 of 100,000 sorted by lastSeen ≥ 100× json-server's req/s"]);
    expect(peerTargets([page(2_000), peer(2_000)])).toEqual([]);
  });

  it('reports each on one line: met or missed, with the two figures it was judged from', () => {
    const [deep] = journeyTargets([ours(0.2, { chart: 'depth', series: 'api.fetch', depth: 0 }), ours(0.3, { chart: 'depth', series: 'api.fetch', depth: 100 })], 200, 100);
    expect(targetLine(deep!)).toBe('MISSED: page at depth 100 of the 200 journey ≤ 1.2× its first page: 0.300 ms against 0.200 ms, 1.50× (bound ≤ 1.2×)');
  });
});

describe('--save', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-readme-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the figures between the markers of bench/README.md and leaves the rest as it was', () => {
    const readme = join(dir, 'README.md');
    writeFileSync(readme, '# Bench\n\nHow to run.\n\n<!-- bench:results -->\nold figures\n<!-- /bench:results -->\n\nAfter.\n');
    const run: BenchRun = {
      startedAt: '2026-01-02T03:04:05.000Z',
      machine: { cpus: 2, memoryGb: 8, node: 'v20', platform: 'linux-x64' },
      config: { tiny: false },
      suites: [{ suite: 'journey-paging', title: 'Journey paging', cases: [ours(0.2, { chart: 'depth', series: 'api.fetch', depth: 0 })], targets: [] }],
    };
    writeReadme(run, readme, ['results/http.svg']);
    const text = readFileSync(readme, 'utf8');
    expect(text.startsWith('# Bench\n\nHow to run.\n\n<!-- bench:results -->\nRun 2026-01-02 on 2 CPUs')).toBe(true);
    expect(text).not.toContain('old figures');
    expect(text).toContain('| journey-paging | **{"chart":"depth","series":"api.fetch","depth":0}** | 0.200 ms |');
    expect(text).toContain('![results/http.svg](results/http.svg)');
    expect(text.endsWith('<!-- /bench:results -->\n\nAfter.\n')).toBe(true);
  });
});
