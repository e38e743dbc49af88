import type { Report } from '../types.ts';
import { reasonOf } from './summary.ts';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: a testsuite per spec section, a testcase per check. */
export function junitReport(report: Report): string {
  const sections = [...new Set(report.results.map((r) => r.section))];
  const suites = sections.map((section) => {
    const results = report.results.filter((r) => r.section === section);
    const cases = results.map((r) => {
      const body = r.verdict === 'failed' ? `<failure message="${escape(r.detail ?? '')}"/>` : r.verdict === 'skipped' ? `<skipped message="${escape(reasonOf(r))}"/>` : r.verdict === 'n/a' ? `<skipped message="${escape(`n/a: ${reasonOf(r)}`)}"/>` : '';
      return `    <testcase classname="${escape(section)}" name="${escape(`${r.id}: ${r.title}`)}" time="${(r.ms / 1000).toFixed(3)}">${body}</testcase>`;
    });
    const failures = results.filter((r) => r.verdict === 'failed').length;
    const skipped = results.filter((r) => r.verdict === 'skipped' || r.verdict === 'n/a').length;
    return `  <testsuite name="${escape(section)}" tests="${results.length}" failures="${failures}" skipped="${skipped}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="visitor-intelligence conformance">\n${suites.join('\n')}\n</testsuites>`;
}
