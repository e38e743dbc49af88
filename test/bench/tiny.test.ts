import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMOKE_RUN } from '../../bench/report/figures.ts';
import { formatTable } from '../../bench/report/table.ts';
import type { BenchRun } from '../../bench/results.ts';
import { DEFAULT_SUITES, runBench, type RunOutcome } from '../../bench/run.ts';

// The smoke run, once in-process: it proves the benchmark code still runs end to end.
// Figures are never asserted: they depend on the machine and on whatever else it is doing.
const dir = mkdtempSync(join(tmpdir(), 'vi-bench-'));
const out = join(dir, 'results');
let outcome: RunOutcome;

beforeAll(async () => {
  // Its own cache directory, so the test builds the tiny data set instead of reusing a developer's.
  outcome = await runBench({ tiny: true, seed: 42, out, cacheDir: join(dir, 'cache'), log: () => {} });
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- --tiny', () => {
  // One test per suite, so a failure names the suite it came from.
  it.each(DEFAULT_SUITES.sqlite)('runs the %s suite without failing (it may skip a part, with a note)', (name) => {
    expect(outcome.failed.filter((f) => f.startsWith(`${name}:`))).toEqual([]);
    const suite = outcome.run.suites.find((s) => s.suite === name)!;
    expect(suite.cases.length > 0 || (suite.skipped?.length ?? 0) > 0).toBe(true);
  });

  it('judges no target, and says it is a smoke run in the table and in latest.md', () => {
    expect(outcome.run.suites.flatMap((s) => s.targets)).toEqual([]);
    const table = formatTable(outcome.run);
    expect(table).toContain(SMOKE_RUN);
    expect(table).not.toMatch(/^\s*(met|MISSED):/m);
    const md = readFileSync(join(out, 'latest.md'), 'utf8');
    expect(md).toContain(SMOKE_RUN);
    expect(md).not.toContain('targets met');
  });

  it('measures each adapter beside its naive server on both pages, and the export beside its floor over the same rows', () => {
    const http = outcome.run.suites.find((s) => s.suite === 'http')!;
    for (const c of http.cases.filter((c) => c.role === 'ours')) {
      expect(http.cases.some((f) => f.role === 'floor' && f.params?.runtime === c.params!.runtime && f.params?.page === c.params!.page), c.name).toBe(true);
    }
    const exports = outcome.run.suites.find((s) => s.suite === 'export')!;
    const [ours, naive] = [exports.cases.find((c) => c.role === 'ours')!, exports.cases.find((c) => c.role === 'floor')!];
    for (const c of [ours, naive]) expect(c.perSecond).toBeGreaterThan(0);
    expect(naive.params!.rows).toBe(ours.params!.rows);
    expect(ours.peakMb).toBeDefined();
  });

  it('writes latest.json: the run with its suites and their cases', () => {
    const run = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as BenchRun;
    expect(run.config.tiny).toBe(true);
    for (const name of ['journey-paging', 'people-paging']) {
      const suite = run.suites.find((s) => s.suite === name)!;
      expect(suite.cases.some((c) => c.role === 'ours')).toBe(true);
      expect(suite.cases.some((c) => c.role === 'floor')).toBe(true);
      for (const c of suite.cases) {
        expect(typeof c.medianMs).toBe('number');
        expect(typeof c.p99Ms).toBe('number');
        expect(c.samples).toBeGreaterThan(0);
      }
    }
  });

  it('writes the two SVG charts, each series of the run in its legend', () => {
    for (const [file, labels] of [
      ['paging-depth.svg', ['keyset, api.fetch (ours)', 'keyset, naive floor', 'OFFSET, naive floor']],
      ['http.svg', ['our adapter', 'naive bare server (floor)']],
    ] as const) {
      const svg = readFileSync(join(out, file), 'utf8');
      expect(svg.trimStart().startsWith('<svg')).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
      for (const label of labels) expect(svg, file).toContain(label);
    }
  });

  it('prints a table naming every suite', () => {
    const table = formatTable(outcome.run);
    for (const suite of outcome.run.suites) expect(table).toContain(`[${suite.suite}]`);
  });
});
