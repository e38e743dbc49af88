/**
 * How a case's figures read in every report: milliseconds, rates, and the ratio to its floor.
 * A latency case names its floor in `params.floor` and is compared by median time; any other
 * case is paired with the first floor or peer case of its suite with the same params, and
 * compared by rate (the HTTP, peer and export suites measure throughput).
 */
import type { CaseResult, SuiteResult, TargetResult } from '../results.ts';

/** The floor (or peer) a case is compared with, and by what. */
function floorOf(c: CaseResult, suite: SuiteResult): { floor: CaseResult; by: 'time' | 'rate' } | undefined {
  if (c.role !== 'ours') return undefined;
  const named = c.params?.floor;
  if (typeof named === 'string') {
    const floor = suite.cases.find((f) => f.name === named);
    return floor && { floor, by: c.medianMs !== undefined && floor.medianMs !== undefined ? 'time' : 'rate' };
  }
  const key = JSON.stringify(c.params ?? {});
  const floor = suite.cases.find((f) => f.role !== 'ours' && JSON.stringify(f.params ?? {}) === key);
  return floor && { floor, by: c.perSecond !== undefined && floor.perSecond !== undefined ? 'rate' : 'time' };
}

/** `ours / floor` by median time (lower is better) or by rate (higher is better). */
function ratioToFloor(c: CaseResult, suite: SuiteResult): { ratio: number; by: 'time' | 'rate' } | undefined {
  const pair = floorOf(c, suite);
  if (!pair) return undefined;
  const { floor, by } = pair;
  if (by === 'time' && c.medianMs !== undefined && floor.medianMs !== undefined) return { ratio: c.medianMs / floor.medianMs, by };
  if (by === 'rate' && c.perSecond !== undefined && floor.perSecond !== undefined) return { ratio: c.perSecond / floor.perSecond, by };
  return undefined;
}

/** Milliseconds with precision that suits their size. */
export function ms(value: number | undefined): string {
  if (value === undefined) return '–';
  if (value < 1) return `${value.toFixed(3)} ms`;
  if (value < 100) return `${value.toFixed(2)} ms`;
  return `${Math.round(value).toLocaleString('en')} ms`;
}

/** A rate with its unit, three significant digits at most below 1,000. */
export function rate(value: number | undefined, unit: string | undefined): string {
  if (value === undefined) return '–';
  const n = value >= 1000 ? Math.round(value).toLocaleString('en') : Number(value.toPrecision(3)).toString();
  return unit ? `${n} ${unit}` : n;
}

/** `0.42× time` / `1.9× rate`, or a dash for a case without a floor. */
export function ratioText(c: CaseResult, suite: SuiteResult): string {
  const r = ratioToFloor(c, suite);
  return r ? `${r.ratio.toFixed(2)}× ${r.by}` : c.role === 'ours' ? '–' : c.role;
}

/** `≤ 1.2×` or `≥ 100×`. */
export function boundText(t: TargetResult): string {
  return `${t.direction === 'at-most' ? '≤' : '≥'} ${t.bound}×`;
}

/** A target's figure in its unit: `0.212 ms`, `3,412 req/s`, `33.3 MB`. */
function figure(value: number, unit: string): string {
  if (unit === 'ms') return ms(value);
  if (unit === 'MB') return `${value.toFixed(1)} MB`;
  return rate(value, unit);
}

/** One line per target: met or missed, the goal, and the two figures it was judged from. */
export function targetLine(t: TargetResult): string {
  return `${t.met ? 'met' : 'MISSED'}: ${t.goal}: ${figure(t.ours, t.unit)} against ${figure(t.against, t.unit)}, ${t.ratio.toFixed(2)}× (bound ${boundText(t)})`;
}

/** What a smoke run says instead of judging targets. */
export const SMOKE_RUN = 'Smoke run (--tiny): every suite ran end to end on tiny data; its figures mean nothing and no target is judged.';

/** Peak memory growth, when measured. */
export function mb(value: number | undefined): string {
  return value === undefined ? '' : `${value.toFixed(1)} MB`;
}

/**
 * A suite's case table as every report lays it out: the column heads, and per case its name and
 * figures as text (the reports format the name themselves). Peak memory only when measured.
 */
export function caseTable(suite: SuiteResult): { head: string[]; rows: { case: CaseResult; figures: string[] }[] } {
  const withPeak = suite.cases.some((c) => c.peakMb !== undefined);
  const head = ['case', 'median', 'p99', 'per second', 'vs floor', ...(withPeak ? ['peak memory'] : [])];
  const rows = suite.cases.map((c) => {
    const figures = [ms(c.medianMs), ms(c.p99Ms), rate(c.perSecond, c.unit), ratioText(c, suite)];
    return { case: c, figures: withPeak ? [...figures, mb(c.peakMb)] : figures };
  });
  return { head, rows };
}
