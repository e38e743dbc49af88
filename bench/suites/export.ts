/**
 * Export suite: rows per second and peak memory growth of our export (POST → complete, the CSV
 * written into storage) against the naive floor (better-sqlite3 `iterate()` → fast-csv) and, when
 * installed, the `sqlite3` shell's `-csv` output of the same rows. Each side runs in a fresh
 * process (export-runs.ts), runs alternating so drift hits every side alike. The suite reads its
 * own people-only databases, built from the run's seed once per size in the run's cache directory.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { exportDatabase } from '../data.ts';
import { QUIET } from '../../scripts/progress.ts';
import { rateTarget, target, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { FLOOR_QUERY, inChild, type ExportRun, type ExportSide } from './export-runs.ts';
import type { SuiteOptions } from './suite.ts';

export const EXPORT_PEOPLE = { tiny: [5_000], full: [100_000, 1_000_000] };
/** Our rows/s against the reference's (the sqlite3 shell, or COPY on PostgreSQL). */
const RATE_BOUND = 0.4;
/** Peak memory growth allowed at the largest size. */
const MEMORY_BOUND_MB = 64;
/** Runs a side at every size: the memory target is the worst of them. */
const RUNS = { tiny: 1, full: 3 };

/** Whether the sqlite3 shell is on the PATH. */
function shellInstalled(): boolean {
  return spawnSync('which', ['sqlite3'], { stdio: 'ignore' }).status === 0;
}

/** The sqlite3 shell writing the same rows as CSV (with a header) to /dev/null; seconds taken. */
function shellRun(path: string, rows: number): ExportRun {
  const devNull = openSync('/dev/null', 'w');
  try {
    const started = performance.now();
    const result = spawnSync('sqlite3', ['-readonly', '-csv', '-header', path, FLOOR_QUERY], { stdio: ['ignore', devNull, 'pipe'], encoding: 'utf8' });
    const seconds = (performance.now() - started) / 1000;
    if (result.status !== 0) throw new Error(`sqlite3 -csv exited with ${result.status}: ${result.stderr}`);
    return { rows, seconds, peakMb: NaN };
  } finally {
    closeSync(devNull);
  }
}

/** Median run by rows/s; peak memory is the worst run's. */
export function fold(name: string, role: CaseResult['role'], runs: ExportRun[], people: number): CaseResult {
  const rate = (r: ExportRun) => r.rows / r.seconds;
  const median = [...runs].sort((a, b) => rate(a) - rate(b))[Math.floor(runs.length / 2)]!;
  const peaks = runs.map((r) => r.peakMb).filter((mb) => Number.isFinite(mb));
  return { name, role, perSecond: rate(median), unit: 'rows/s', medianMs: median.seconds * 1000, ...(peaks.length ? { peakMb: Math.max(...peaks) } : {}), samples: runs.length, params: { people, rows: median.rows } };
}

/**
 * The export targets: ours ≥ 0.4× the reference's rows/s at every size, and its peak memory
 * growth < 64 MB at the largest size measured (judged at a million rows in a full run).
 */
export function exportTargets(cases: CaseResult[], reference: CaseResult['role'], label: string): TargetResult[] {
  const ours = cases.filter((c) => c.role === 'ours');
  const targets = ours.flatMap((c) => {
    const theirs = cases.find((r) => r.role === reference && r.params?.people === c.params!.people);
    return theirs ? [rateTarget(`export of ${Number(c.params!.people).toLocaleString('en')} people ≥ ${RATE_BOUND}× ${label}'s rows/s`, c, theirs, RATE_BOUND)] : [];
  });
  const largest = ours.sort((a, b) => Number(b.params!.people) - Number(a.params!.people))[0];
  if (largest?.peakMb !== undefined) targets.push(target(`export of ${Number(largest.params!.people).toLocaleString('en')} people: peak memory growth < ${MEMORY_BOUND_MB} MB`, largest.peakMb, MEMORY_BOUND_MB, 'MB', 1, 'at-most'));
  return targets;
}

export async function exportSuite(options: SuiteOptions): Promise<SuiteResult> {
  const sizes = options.tiny ? EXPORT_PEOPLE.tiny : EXPORT_PEOPLE.full;
  const count = options.tiny ? RUNS.tiny : RUNS.full;
  const progress = options.progress ?? QUIET;
  const shell = shellInstalled();
  const cases: CaseResult[] = [];
  const skipped: string[] = shell ? [] : ['sqlite3 shell not installed (Debian package sqlite3): no comparison with `sqlite3 -csv`'];
  progress.start(sizes.length * count);

  for (const people of sizes) {
    const path = await exportDatabase({ seed: options.seed, people, cacheDir: options.cacheDir });
    const runs: Record<ExportSide | 'shell', ExportRun[]> = { ours: [], floor: [], shell: [] };
    const size = people.toLocaleString('en');
    for (let i = 0; i < count; i++) {
      runs.ours.push(inChild('ours', path));
      runs.floor.push(inChild('floor', path));
      if (shell) runs.shell.push(shellRun(path, runs.floor[i]!.rows));
      progress.step(`${size} people`);
    }
    cases.push(fold(`export of ${size} people (ours: POST → complete)`, 'ours', runs.ours, people), fold(`export of ${size} people (naive floor: iterate() → fast-csv)`, 'floor', runs.floor, people));
    if (shell) cases.push(fold(`export of ${size} people (sqlite3 -csv shell → /dev/null)`, 'peer', runs.shell, people));
  }
  return {
    suite: 'export',
    title: 'Export: people to CSV, ours against the naive floor and the sqlite3 shell',
    cases,
    targets: exportTargets(cases, 'peer', 'the sqlite3 shell'),
    ...(skipped.length ? { skipped } : {}),
  };
}
