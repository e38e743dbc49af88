/** The run's charts, `paging-depth.svg` and `http.svg`, drawn by Vega-Lite from the run's cases. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { BenchRun } from '../results.ts';

/** The journey-paging series, as that suite tags its chart cases, with their legend labels. */
const DEPTH_SERIES: Record<string, string> = {
  'api.fetch': 'keyset, api.fetch (ours)',
  'keyset floor': 'keyset, naive floor',
  'OFFSET floor': 'OFFSET, naive floor',
};

/** Median latency of one page against its depth: keyset (ours and floor) against OFFSET. */
function depthChart(run: BenchRun): TopLevelSpec {
  const cases = run.suites.find((s) => s.suite === 'journey-paging')?.cases.filter((c) => c.params?.chart === 'depth' && c.medianMs !== undefined) ?? [];
  return {
    title: {
      text: 'Latency of one page of 100 events against its depth',
      subtitle: cases.length ? `Median per page, journey of ${Number(cases[0]!.params!.journey).toLocaleString('en')} events; lower is better.` : 'No journey-paging results in this run',
    },
    width: 640,
    height: 320,
    data: { values: cases.map((c) => ({ depth: Number(c.params!.depth), ms: c.medianMs!, series: DEPTH_SERIES[String(c.params!.series)] ?? String(c.params!.series)})) },
    mark: { type: 'line', point: true, tooltip: true },
    encoding: {
      x: { field: 'depth', type: 'quantitative', title: 'depth (events before the page)' },
      y: { field: 'ms', type: 'quantitative', title: 'milliseconds per page' },
      color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', labelLimit: 0 } },
    },
  };
}

/** Requests per second per runtime: our adapter beside the naive bare server of that runtime. */
function httpChart(run: BenchRun): TopLevelSpec {
  const suite = run.suites.find((s) => s.suite === 'http');
  const cases = suite?.cases.filter((c) => c.params?.runtime !== undefined && c.params.page === 'events' && c.perSecond !== undefined) ?? [];
  const why = suite?.skipped?.[0] ?? (suite ? 'The http suite reported no per-runtime rates' : 'No http suite in this run');
  return {
    title: { text: 'Requests per second over loopback, by runtime', subtitle: cases.length ? 'A page of 100 events per request; higher is better.' : why },
    width: 160,
    height: 300,
    data: { values: cases.map((c) => ({ runtime: String(c.params!.runtime), server: c.role === 'floor' ? 'naive bare server (floor)' : 'our adapter', perSecond: Math.round(c.perSecond!) })) },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      column: { field: 'runtime', type: 'nominal', title: null },
      x: { field: 'server', type: 'nominal', axis: null },
      y: { field: 'perSecond', type: 'quantitative', title: cases[0]?.unit ?? 'req/s' },
      color: { field: 'server', type: 'nominal', title: null, legend: { orient: 'bottom', labelLimit: 0 } },
    },
  };
}

/** Writes the charts into `dir`; returns their file names. */
export async function writeCharts(run: BenchRun, dir: string): Promise<string[]> {
  const charts: [string, TopLevelSpec][] = [
    ['paging-depth.svg', depthChart(run)],
    ['http.svg', httpChart(run)],
  ];
  for (const [file, spec] of charts) {
    const svg = await new View(parse(compile({ background: 'white', ...spec }).spec), { renderer: 'none' }).toSVG();
    writeFileSync(join(dir, file), svg);
  }
  return charts.map(([file]) => file);
}
