import type { CheckResult, Report } from '../types.ts';

/** The closing line every format ends with: `N passed, N failed, N skipped, N n/a`. */
export function summaryLine(report: Report): string {
  return `${report.totals.passed} passed, ${report.totals.failed} failed, ${report.totals.skipped} skipped, ${report.totals['n/a']} n/a`;
}

/** Why a check was skipped or is not applicable, naming the profile key that would enable an n/a one. */
export function reasonOf(result: CheckResult): string {
  const reason = result.detail ?? '';
  return result.profileKey ? `${reason} (set "${result.profileKey}" in --profile to run it)` : reason;
}
