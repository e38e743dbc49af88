import type { Report } from '../types.ts';
import { summaryLine } from './summary.ts';

const MARK = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' } as const;

/** A readable report grouped by spec section, then the request count and the closing line. */
export function textReport(report: Report): string {
  const lines = [`Visitor Intelligence API conformance: ${report.baseUrl}`, ''];
  const sections = [...new Set(report.results.map((r) => r.section))];
  for (const section of sections) {
    lines.push(`## ${section}`);
    for (const r of report.results.filter((x) => x.section === section)) {
      lines.push(`  ${MARK[r.verdict]} ${r.id}: ${r.title}`);
      if (r.detail && r.verdict !== 'passed') lines.push(`       ${r.detail}`);
    }
    lines.push('');
  }
  lines.push(`${report.requests} requests sent.`);
  lines.push(summaryLine(report));
  return lines.join('\n');
}
