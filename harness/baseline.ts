/**
 * Baselines in the style of Schemathesis and WPT expectations: a file records the checks known to
 * fail against an implementation, so a run is judged by what changed. Only a new failure or an
 * unexpected pass (a known failure that now passes, so the file is stale) makes a run fail.
 */
import type { Report } from './types.ts';

/** The file: the ids of the checks known to fail, with the message each failed with when recorded. */
export interface Baseline {
  failures: Record<string, string>;
}

/** How a run compares with a baseline. */
export interface BaselineComparison {
  /** Failed now, not in the baseline. */
  newFailures: string[];
  /** In the baseline, passed now. */
  unexpectedPasses: string[];
  /** In the baseline and failed again. */
  knownFailures: string[];
  /** Whether the run is as expected (exit 0). */
  ok: boolean;
}

/** The baseline a report gives: every failed check, with its message. */
export function baselineOf(report: Report): Baseline {
  const failures: Record<string, string> = {};
  for (const r of report.results) if (r.verdict === 'failed') failures[r.id] = r.detail ?? '';
  return { failures };
}

/** Reads a baseline from parsed JSON (`{failures: {id: message}}`, or `{failures: [id, …]}`), or throws naming what is wrong. */
export function parseBaseline(json: unknown): Baseline {
  const failures = (json as { failures?: unknown } | null)?.failures;
  if (Array.isArray(failures) && failures.every((id) => typeof id === 'string')) return { failures: Object.fromEntries(failures.map((id) => [id, ''])) };
  if (failures && typeof failures === 'object' && !Array.isArray(failures)) return { failures: Object.fromEntries(Object.entries(failures).map(([id, m]) => [id, String(m)])) };
  throw new Error('a baseline is {"failures": {"<check id>": "<message>", …}}');
}

/** Compares a run with a baseline; checks skipped or n/a this time are neither new failures nor passes. */
export function compareBaseline(report: Report, baseline: Baseline): BaselineComparison {
  const known = new Set(Object.keys(baseline.failures));
  const newFailures = report.results.filter((r) => r.verdict === 'failed' && !known.has(r.id)).map((r) => r.id);
  const unexpectedPasses = report.results.filter((r) => r.verdict === 'passed' && known.has(r.id)).map((r) => r.id);
  const knownFailures = report.results.filter((r) => r.verdict === 'failed' && known.has(r.id)).map((r) => r.id);
  return { newFailures, unexpectedPasses, knownFailures, ok: newFailures.length === 0 && unexpectedPasses.length === 0 };
}

/** One line per difference, for the end of the report. */
export function baselineLines(comparison: BaselineComparison, file: string): string[] {
  const lines = [`Baseline ${file}: ${comparison.knownFailures.length} known failure(s) failed again.`];
  for (const id of comparison.newFailures) lines.push(`  new failure: ${id}`);
  for (const id of comparison.unexpectedPasses) lines.push(`  unexpected pass: ${id} (remove it from the baseline, or run with --update-baseline)`);
  return lines;
}
