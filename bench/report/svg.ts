/** Writes the run's SVG charts beside the JSON and Markdown. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRun } from '../results.ts';
import { depthChart } from './svg-depth.ts';
import { httpChart } from './svg-http.ts';

/** Writes `paging-depth.svg` and `http.svg` into `dir`; returns their file names. */
export function writeCharts(run: BenchRun, dir: string): string[] {
  const charts: [string, string][] = [
    ['paging-depth.svg', depthChart(run)],
    ['http.svg', httpChart(run)],
  ];
  for (const [file, svg] of charts) writeFileSync(join(dir, file), svg);
  return charts.map(([file]) => file);
}
