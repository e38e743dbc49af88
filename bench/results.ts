/**
 * The one shape every benchmark suite returns and every report (terminal table, JSON, Markdown,
 * SVG charts) reads. Numbers are only ever compared within one run: ratios, never absolutes.
 */

/** One measured case: ours or a floor/peer it is compared with. */
export interface CaseResult {
  /** Short stable name, e.g. `journey page @ depth 10,000 (api.fetch)`. */
  name: string;
  /** What kind of thing it is: our code, a naive floor, or a peer project. */
  role: 'ours' | 'floor' | 'peer';
  /** Latency per operation in milliseconds (absent for throughput-only cases). */
  medianMs?: number;
  p99Ms?: number;
  /** Throughput, when the case measures it (requests/s, rows/s). */
  perSecond?: number;
  /** Unit of `perSecond`, e.g. `req/s`, `rows/s`. */
  unit?: string;
  /** Peak memory growth in MB, when measured. */
  peakMb?: number;
  /** A server's CPU time a request in µs, user and system (kernel), when measured (Linux). */
  serverCpuUs?: { user: number; system: number };
  /** Where the measuring thread's time went while the case was sampled (paging cases, Linux): see bench/servers/thread-time.ts. */
  threadTime?: ThreadTime;
  /** Each interleaved pass over the case (paging cases): whether a slow case was slow throughout or in some passes, beside what the other cases measured at the time. */
  passes?: Pass[];
  /** How many operations or samples the figures come from. */
  samples: number;
  /** Extra series values for charts, e.g. `{ depth: 10000 }`. */
  params?: Record<string, number | string>;
}

/** A case's sampling windows summed: wall time, and the measuring thread's time on a CPU and waiting for one, in ms. */
export interface ThreadTime {
  wallMs: number;
  cpuMs: number;
  runQueueMs: number;
}

/** One pass over a case: when its samples started (seconds since the suite's measuring began) and their median. */
export interface Pass {
  atS: number;
  medianMs: number;
}

/** A comparison the project holds itself to, judged from cases of the same run. */
export interface TargetResult {
  /** The goal as a sentence, e.g. `page at depth 10,000 ≤ 1.1× the first page`. */
  goal: string;
  /** The measured ratio. */
  ratio: number;
  /** The bound on the ratio and its direction. */
  bound: number;
  direction: 'at-most' | 'at-least';
  met: boolean;
  /** When missed: what the profile shows, in a sentence or two. */
  note?: string;
}

/** What one suite measured. */
export interface SuiteResult {
  /** e.g. `journey-paging`, `people-paging`, `http`, `peer`, `export`. */
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

/** A target judged from two figures: `ratio = ours / floor`. */
export function target(goal: string, ours: number, floor: number, bound: number, direction: TargetResult['direction'], note?: string): TargetResult {
  const ratio = ours / floor;
  const met = direction === 'at-most' ? ratio <= bound : ratio >= bound;
  return { goal, ratio, bound, direction, met, ...(met || !note ? {} : { note }) };
}

/** Median and 99th percentile of samples (milliseconds). */
export function percentiles(samples: number[]): { medianMs: number; p99Ms: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { medianMs: at(0.5), p99Ms: at(0.99) };
}
