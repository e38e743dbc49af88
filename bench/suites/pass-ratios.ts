/**
 * A ratio target between two paging cases is judged on their pooled medians. These machines' host
 * slows a case 1.3–3× for a moment now and then (README, "Reading the journey depth target"), so a
 * missed target's note also reads the ratio pass by pass: pass i of each case ran in the same
 * interleaved pass, seconds apart, so a slowdown that hits both leaves their ratio alone. The
 * median here is the middle of the ratios (the mean of the two middle ones for an even count),
 * not `percentiles`' upper middle of many samples: with 12 passes the two differ.
 */
import type { CaseResult } from '../results.ts';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** How far apart values landed: largest over smallest, less one (0.05 for 5%). */
export const spreadOf = (values: number[]): number => Math.max(...values) / Math.min(...values) - 1;

/** A fraction as a whole percentage, `0.052` → `5%`. */
export const percent = (fraction: number): string => `${(fraction * 100).toFixed(0)}%`;

/** The ratio of `ours` to `base` pass by pass, their fastest passes' ratio and how far each case's passes spread; empty without passes. */
export function passRatioNote(ours: CaseResult, base: CaseResult): string {
  const [a, b] = [ours.passes?.map((p) => p.medianMs) ?? [], base.passes?.map((p) => p.medianMs) ?? []];
  const paired = Math.min(a.length, b.length);
  if (paired < 2) return '';
  const ratios = a.slice(0, paired).map((x, i) => x / b[i]!);
  return (
    `Pass by pass (${paired} interleaved passes): the ratio's median ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×), ` +
    `the fastest passes' ${(Math.min(...a) / Math.min(...b)).toFixed(2)}×; each case's passes spread ${percent(spreadOf(a))} and ${percent(spreadOf(b))} from fastest to slowest. `
  );
}
