import type { Report } from '../types.ts';
import { reasonOf, summaryLine } from './summary.ts';

const MARK = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip', 'n/a': 'n/a ' } as const;

/** A readable report grouped by spec section, then the request count and the closing line. */
export function textReport(report: Report): string {
  const lines = [`Visitor Intelligence API conformance: ${report.baseUrl}`, ''];
  if (report.stopped) lines.push(report.stopped, '');
  const sections = [...new Set(report.results.map((r) => r.section))];
  for (const section of sections) {
    lines.push(`## ${section}`);
    for (const r of report.results.filter((x) => x.section === section)) {
      lines.push(`  ${MARK[r.verdict]} ${r.id}: ${r.title}`);
      if (r.detail && r.verdict !== 'passed') lines.push(`       ${reasonOf(r)}`);
    }
    lines.push('');
  }
  const plan = report.plan;
  lines.push(`${report.requests} requests sent${plan ? ` (planned about ${plan.needed}${plan.remaining === undefined ? '' : `; ${plan.remaining} remained this hour at the start`})` : ''}.`);
  lines.push(summaryLine(report));
  return lines.join('\n');
}
