/**
 * `latest.md`: the summary the README shows. Targets first, each plainly met or missed with its
 * ratio and, when missed, what the profile shows; then one table per suite and the charts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRun, SuiteResult } from '../results.ts';
import { boundText, caseTable } from './figures.ts';

/** Text safe inside a Markdown table cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The summary as Markdown. */
function formatMarkdown(run: BenchRun, charts: string[]): string {
  const { machine } = run;
  const config = Object.entries(run.config)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const out = [
    '# Benchmark results',
    '',
    `Run ${run.startedAt} on ${machine.cpus} CPUs, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.platform}; \`${config}\`.`,
    'Absolute figures vary 5–15% from run to run on these machines: compare the ratios, which come from one run.',
    '"vs floor" is ours ÷ its floor (or peer), by median time (lower is better) or by rate (higher is better); our cases are in bold.',
    '',
    ...targetsSection(run),
    ...run.suites.flatMap(suiteSection),
  ];
  if (charts.length > 0) out.push('## Charts', '', ...charts.map((file) => `![${file}](${file})`), '');
  return out.join('\n');
}

/** Writes `<dir>/latest.md` and returns its path; `charts` are SVG file names beside it. */
export function writeMarkdown(run: BenchRun, dir: string, charts: string[]): string {
  const path = join(dir, 'latest.md');
  writeFileSync(path, formatMarkdown(run, charts));
  return path;
}

function targetsSection(run: BenchRun): string[] {
  const targets = run.suites.flatMap((s) => s.targets.map((t) => ({ suite: s.suite, ...t })));
  const out = ['## Targets', ''];
  if (targets.length === 0) return [...out, 'No suite in this run judged a target.', ''];
  const missed = targets.filter((t) => !t.met).length;
  out.push(`${targets.length - missed} of ${targets.length} targets met${missed > 0 ? `, ${missed} missed` : ''}.`, '');
  for (const t of targets) {
    out.push(`- **${t.met ? 'met' : 'missed'}** (${t.suite}): ${t.goal}: measured **${t.ratio.toFixed(2)}×**, bound ${boundText(t)}.`);
    if (t.note) out.push(`  ${t.note}`);
  }
  return [...out, ''];
}

function suiteSection(suite: SuiteResult): string[] {
  const out = [`## ${suite.title}`, ''];
  if (suite.cases.length > 0) {
    const { head, rows } = caseTable(suite);
    // The name column left-aligned, the figures right-aligned.
    out.push(`| ${head.join(' | ')} |`, `|---|${'---:|'.repeat(head.length - 1)}`);
    for (const { case: c, figures } of rows) {
      const name = c.role === 'ours' ? `**${cell(c.name)}**` : cell(c.name);
      out.push(`| ${[name, ...figures].join(' | ')} |`);
    }
    out.push('');
  }
  for (const s of suite.skipped ?? []) out.push(`- Skipped: ${cell(s)}`);
  if (suite.skipped?.length) out.push('');
  return out;
}
