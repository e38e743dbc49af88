import type { Report } from '../types.ts';

/** The report as JSON, for machines. */
export function jsonReport(report: Report): string {
  return JSON.stringify(report, null, 2);
}
