import type { Report } from '../types.ts';

/** The closing line every format ends with: `N passed, N failed, N skipped`. */
export function summaryLine(report: Report): string {
  return `${report.totals.passed} passed, ${report.totals.failed} failed, ${report.totals.skipped} skipped`;
}
