/**
 * The one shape every benchmark suite returns and every report (terminal table, JSON, README
 * table, SVG charts) reads. Numbers are only ever compared within one run: ratios, never absolutes.
 */

/** One measured case: ours or a floor/peer it is compared with. */
export interface CaseResult {
  /** Short stable name, e.g. `50k journey, page @ 10,000 · api.fetch`. */
  name: string;
  role: 'ours' | 'floor' | 'peer';
  /** Latency per operation in milliseconds (absent for throughput-only cases). */
  medianMs?: number;
  p99Ms?: number;
  /** Throughput, when the case measures it, in `unit` (req/s, rows/s, pages/s). */
  perSecond?: number;
  unit?: string;
  /** Peak memory growth in MB, when measured. */
  peakMb?: number;
  /** How many operations or samples the figures come from. */
  samples: number;
  /** What the case is (page, depth, runtime…), for the targets, the charts and the floor it is compared with. */
  params?: Record<string, number | string>;
}

/** A bound the project holds itself to, judged from two figures of the same run. */
export interface TargetResult {
  /** The goal as a sentence, e.g. `page at depth 10,000 ≤ 1.2× the first page`. */
  goal: string;
  /** Our figure and the one it is held against, in `unit`. */
  ours: number;
  against: number;
  unit: string;
  /** `ours / against`, the bound on it and its direction. */
  ratio: number;
  bound: number;
  direction: 'at-most' | 'at-least';
  met: boolean;
}

/** What one suite measured. */
export interface SuiteResult {
  suite: string;
  title: string;
  cases: CaseResult[];
  targets: TargetResult[];
  /** Why the suite (or part of it) did not run, e.g. `sqlite3 shell not installed`. */
  skipped?: string[];
}

/** A whole `npm run bench` run. */
export interface BenchRun {
  startedAt: string;
  machine: { cpus: number; memoryGb: number; node: string; platform: string };
  config: Record<string, number | string | boolean>;
  suites: SuiteResult[];
}

/** A target judged from two figures: `ratio = ours / against`. */
export function target(goal: string, ours: number, against: number, unit: string, bound: number, direction: TargetResult['direction']): TargetResult {
  const ratio = ours / against;
  const met = direction === 'at-most' ? ratio <= bound : ratio >= bound;
  return { goal, ours, against, unit, ratio, bound, direction, met };
}

/** A latency target between two cases, by their medians. */
export function timeTarget(goal: string, ours: CaseResult, against: CaseResult, bound: number): TargetResult {
  return target(goal, ours.medianMs!, against.medianMs!, 'ms', bound, 'at-most');
}

/** A throughput target between two cases, by their rates. */
export function rateTarget(goal: string, ours: CaseResult, against: CaseResult, bound: number): TargetResult {
  return target(goal, ours.perSecond!, against.perSecond!, ours.unit ?? '/s', bound, 'at-least');
}

/** Median and 99th percentile of samples (milliseconds). */
export function percentiles(samples: number[]): { medianMs: number; p99Ms: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { medianMs: at(0.5), p99Ms: at(0.99) };
}
