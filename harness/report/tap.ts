import type { Report } from '../types.ts';
import { reasonOf, summaryLine } from './summary.ts';

/** TAP version 14: one test point per check; skipped and n/a checks carry their reason as a SKIP directive. */
export function tapReport(report: Report): string {
  const lines = ['TAP version 14', `1..${report.results.length}`];
  if (report.stopped) lines.push(`# ${report.stopped}`);
  report.results.forEach((r, i) => {
    const name = `${r.id} - ${r.title}`.replace(/#/g, '\\#');
    if (r.verdict === 'skipped') lines.push(`ok ${i + 1} - ${name} # SKIP ${reasonOf(r)}`);
    else if (r.verdict === 'n/a') lines.push(`ok ${i + 1} - ${name} # SKIP n/a: ${reasonOf(r)}`);
    else lines.push(`${r.verdict === 'passed' ? 'ok' : 'not ok'} ${i + 1} - ${name}`);
    if (r.verdict === 'failed') lines.push('  ---', `  section: ${JSON.stringify(r.section)}`, `  message: ${JSON.stringify(r.detail ?? '')}`, '  ...');
  });
  lines.push(`# ${report.requests} requests sent`, `# ${summaryLine(report)}`);
  return lines.join('\n');
}
