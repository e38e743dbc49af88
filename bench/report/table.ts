/** The terminal table: per suite, every case with its median, p99, rate and ratio to its floor, then its targets. */
import type { BenchRun, SuiteResult } from '../results.ts';
import { caseTable, SMOKE_RUN, targetLine } from './figures.ts';

/** The whole run as plain text columns (no colours, so it reads the same in a CI log). */
export function formatTable(run: BenchRun): string {
  const suites = run.suites.map(formatSuite).join('\n\n');
  return run.config.tiny ? `${suites}\n\n${SMOKE_RUN}` : suites;
}

/** One suite's cases, targets and skipped parts. */
export function formatSuite(suite: SuiteResult): string {
  const { head, rows: cases } = caseTable(suite);
  const rows = cases.map((r) => [r.case.name, ...r.figures]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // The name column is left-aligned, the figures right-aligned so digits line up.
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [`${suite.title} [${suite.suite}]`, line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)];
  for (const t of suite.targets) out.push(`  ${targetLine(t)}`);
  for (const s of suite.skipped ?? []) out.push(`  skipped: ${s}`);
  return out.join('\n');
}
