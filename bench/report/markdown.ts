/**
 * The run as Markdown: how it ran, one line per target, and one table of every case. A run writes
 * it as `latest.md` beside its JSON; `--save` also puts it in bench/README.md between two markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRun } from '../results.ts';
import { caseTable, SMOKE_RUN, targetLine } from './figures.ts';

/** The markers around the figures in bench/README.md. */
const BEGIN = '<!-- bench:results -->';
const END = '<!-- /bench:results -->';

/** Text safe inside a Markdown table cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The figures as Markdown; `charts` are SVG paths relative to where the text is placed. */
export function formatMarkdown(run: BenchRun, charts: string[]): string {
  const { machine } = run;
  const config = Object.entries(run.config)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const targets = run.suites.flatMap((s) => s.targets);
  const out = [`Run ${run.startedAt.slice(0, 10)} on ${machine.cpus} CPUs, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.platform}: \`${config}\`.`, ''];
  if (run.config.tiny) out.push(SMOKE_RUN, '');
  else if (targets.length > 0) out.push(`${targets.filter((t) => t.met).length} of ${targets.length} targets met.`, '', ...targets.map((t) => `- ${targetLine(t)}`), '');
  out.push('| suite | case | median | p99 | per second | vs floor | peak memory |', '|---|---|---:|---:|---:|---:|---:|');
  for (const suite of run.suites) {
    for (const { case: c, figures } of caseTable(suite).rows) {
      const [median, p99, perSecond, vsFloor, peak = ''] = figures;
      const name = c.role === 'ours' ? `**${cell(c.name)}**` : cell(c.name);
      out.push(`| ${suite.suite} | ${name} | ${median} | ${p99} | ${perSecond} | ${vsFloor} | ${peak} |`);
    }
  }
  const skipped = run.suites.flatMap((s) => (s.skipped ?? []).map((why) => `- Skipped (${s.suite}): ${cell(why)}`));
  if (skipped.length > 0) out.push('', ...skipped);
  if (charts.length > 0) out.push('', ...charts.map((file) => `![${file}](${file})`));
  return `${out.join('\n')}\n`;
}

/** Writes `<dir>/latest.md` and returns its path; `charts` are SVG file names beside it. */
export function writeMarkdown(run: BenchRun, dir: string, charts: string[]): string {
  const path = join(dir, 'latest.md');
  writeFileSync(path, formatMarkdown(run, charts));
  return path;
}

/** Replaces the figures between the markers of `readme` (charts relative to it); its path. */
export function writeReadme(run: BenchRun, readme: string, charts: string[]): string {
  const text = readFileSync(readme, 'utf8');
  const [start, end] = [text.indexOf(BEGIN), text.indexOf(END)];
  if (start < 0 || end < start) throw new Error(`${readme} has no ${BEGIN} … ${END} section to write the figures into`);
  writeFileSync(readme, `${text.slice(0, start + BEGIN.length)}\n${formatMarkdown(run, charts)}${text.slice(end)}`);
  return readme;
}
