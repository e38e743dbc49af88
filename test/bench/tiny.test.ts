import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/report/table.ts';
import type { BenchRun } from '../../bench/results.ts';
import { DEFAULT_SUITES, runBench, type RunOutcome } from '../../bench/run.ts';
import { durableNote } from '../../bench/suites/export.ts';

// The CI configuration, run once in-process: it proves the benchmark code still runs end to end.
// Figures are never asserted: they depend on the machine and on whatever else it is doing.
const dir = mkdtempSync(join(tmpdir(), 'vi-bench-'));
const out = join(dir, 'results');
let outcome: RunOutcome;

beforeAll(async () => {
  // Its own cache directory, so the test builds the tiny data set instead of reusing a developer's.
  outcome = await runBench({ tiny: true, seed: 42, out, cacheDir: join(dir, 'cache'), log: () => {} });
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- --tiny', () => {
  // One test per suite, so a failure names the suite it came from.
  it.each(DEFAULT_SUITES.sqlite)('runs the %s suite without failing (it may skip a part, with a note)', (name) => {
    expect(outcome.failed.filter((f) => f.startsWith(`${name}:`))).toEqual([]);
    const suite = outcome.run.suites.find((s) => s.suite === name)!;
    expect(suite.cases.length > 0 || (suite.skipped?.length ?? 0) > 0).toBe(true);
  });

  it("measures the people page in-process beside each HTTP server it loads (the work's own limit)", () => {
    const http = outcome.run.suites.find((s) => s.suite === 'http')!;
    const loaded = new Set(http.cases.filter((c) => c.params?.page === 'people' && c.role === 'ours').map((c) => c.params!.runtime));
    const inProcess = (cases: typeof http.cases) => cases.filter((c) => c.params?.series === 'in-process');
    expect(new Set(inProcess(http.cases).map((c) => c.params!.runtime))).toEqual(loaded);
    const peer = outcome.run.suites.find((s) => s.suite === 'peer')!;
    expect(inProcess(peer.cases).length).toBe(peer.cases.filter((c) => c.role === 'ours').length);
    for (const c of [...inProcess(http.cases), ...inProcess(peer.cases)]) expect(c.perSecond).toBeGreaterThan(0);
  });

  it.runIf(process.platform === 'linux')("reads the CPU each HTTP server used a request, user and system, and says it in a missed target's note", () => {
    const http = outcome.run.suites.find((s) => s.suite === 'http')!;
    const loaded = http.cases.filter((c) => c.params?.series !== 'in-process');
    expect(loaded.length).toBeGreaterThan(0);
    for (const c of loaded) {
      expect(c.serverCpuUs, c.name).toBeDefined();
      // A tiny run's 40 requests may take less than one clock tick (10 ms): zero is a fair reading.
      for (const us of [c.serverCpuUs!.user, c.serverCpuUs!.system]) expect(Number.isFinite(us) && us >= 0, c.name).toBe(true);
    }
    // A target keeps its note only when missed.
    for (const t of http.targets.filter((t) => t.note !== undefined)) expect(t.note).toMatch(/Server CPU a request, user \+ system µs \(warm-ups included\): ours \d+ \+ \d+; naive \d+ \+ \d+/);
  });

  it('measures the export beside the naive and the durable floor, over the same rows', () => {
    const exports = outcome.run.suites.find((s) => s.suite === 'export')!;
    const side = (name: string) => exports.cases.find((c) => c.name.includes(name))!;
    const [ours, naive, durable] = [side('(ours:'), side('(naive floor:'), side('(durable floor:')];
    for (const c of [ours, naive, durable]) expect(c.perSecond).toBeGreaterThan(0);
    expect(durable.params!.rows).toBe(ours.params!.rows);
    expect(naive.params!.rows).toBe(ours.params!.rows);
  });

  it('says in the export note what the durable floor reaches, and calls the bound out of reach only when that floor misses it', () => {
    expect(durableNote(0.49, 0.56)).toContain('reaches 0.49× the shell, ours 0.56× it: the snapshot, the steps and their commits take the rest.');
    expect(durableNote(0.38, 0.6)).toContain('out of reach for an export that keeps its file in the database as ours does');
  });

  it('writes latest.json: the run with its suites and their cases', () => {
    const run = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as BenchRun;
    expect(run.suites.map((s) => s.suite).slice(0, 2)).toEqual(['journey-paging', 'people-paging']);
    for (const name of ['journey-paging', 'people-paging']) {
      const suite = run.suites.find((s) => s.suite === name)!;
      expect(suite.cases.length).toBeGreaterThan(0);
      expect(suite.cases.some((c) => c.role === 'ours')).toBe(true);
      expect(suite.cases.some((c) => c.role === 'floor')).toBe(true);
      for (const c of suite.cases) {
        expect(typeof c.medianMs).toBe('number');
        expect(typeof c.p99Ms).toBe('number');
        expect(c.samples).toBeGreaterThan(0);
      }
    }
    expect(run.suites.find((s) => s.suite === 'journey-paging')!.targets.length).toBeGreaterThan(0);
  });

  it('writes latest.md with a targets section that says met or missed', () => {
    const md = readFileSync(join(out, 'latest.md'), 'utf8');
    expect(md).toContain('## Targets');
    expect(md).toMatch(/- \*\*(met|missed)\*\*/);
    expect(md).toContain('## Journey paging');
  });

  it('writes the two SVG charts', () => {
    for (const file of ['paging-depth.svg', 'http.svg']) {
      const svg = readFileSync(join(out, file), 'utf8');
      expect(svg.trimStart().startsWith('<svg')).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    }
    expect(readFileSync(join(out, 'paging-depth.svg'), 'utf8')).toContain('<path');
  });

  it('prints a table naming every suite', () => {
    const table = formatTable(outcome.run);
    for (const suite of outcome.run.suites) expect(table).toContain(`[${suite.suite}]`);
  });
});
