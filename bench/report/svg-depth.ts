/** `paging-depth.svg`: median latency of one page against its depth, keyset (ours and floor) against OFFSET. */
import type { BenchRun, CaseResult } from '../results.ts';
import { COLOURS, PLOT, emptyChart, esc, legend, open, scale, tickLabel, ticks, xAxis, yAxis } from './svg-kit.ts';

const TITLE = 'Latency of one page of 100 events against its depth';
/** The series drawn, in legend order; journey-paging tags its chart cases with these. */
const SERIES = [
  { series: 'api.fetch', label: 'keyset, api.fetch (ours)' },
  { series: 'keyset floor', label: 'keyset, naive floor' },
  { series: 'OFFSET floor', label: 'OFFSET, naive floor' },
];

/** The chart as an SVG document. */
export function depthChart(run: BenchRun): string {
  const cases = run.suites.find((s) => s.suite === 'journey-paging')?.cases.filter((c) => c.params?.chart === 'depth' && c.medianMs !== undefined) ?? [];
  const lines = SERIES.map((s, i) => ({
    ...s,
    colour: COLOURS[i]!,
    points: cases
      .filter((c) => c.params!.series === s.series)
      .map((c: CaseResult) => ({ depth: Number(c.params!.depth), ms: c.medianMs! }))
      .sort((a, b) => a.depth - b.depth),
  })).filter((l) => l.points.length > 0);
  if (lines.length === 0) return emptyChart(TITLE, 'No journey-paging results in this run');

  const journey = Number(cases[0]!.params!.journey);
  const xTicks = ticks(Math.max(...lines.flatMap((l) => l.points.map((p) => p.depth))));
  const yTicks = ticks(Math.max(...lines.flatMap((l) => l.points.map((p) => p.ms))));
  const x = scale(xTicks[xTicks.length - 1]!, PLOT.x0, PLOT.x1);
  const y = scale(yTicks[yTicks.length - 1]!, PLOT.y0, PLOT.y1);

  let svg = open(TITLE, `Median per page, journey of ${journey.toLocaleString('en')} events; lower is better.`);
  svg += yAxis(yTicks, 'milliseconds per page');
  svg += xAxis('depth (events before the page)');
  svg += xTicks.map((v) => `<text x="${x(v).toFixed(1)}" y="${PLOT.y0 + 18}" text-anchor="middle" fill="#333">${esc(tickLabel(v))}</text>`).join('\n') + '\n';
  for (const line of lines) {
    const path = line.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.depth).toFixed(1)},${y(p.ms).toFixed(1)}`).join(' ');
    svg += `<path d="${path}" fill="none" stroke="${line.colour}" stroke-width="2.5"/>\n`;
    svg += line.points
      .map((p) => `<circle cx="${x(p.depth).toFixed(1)}" cy="${y(p.ms).toFixed(1)}" r="4" fill="${line.colour}"><title>${esc(`${line.label} @ ${p.depth}: ${p.ms.toFixed(3)} ms`)}</title></circle>`)
      .join('\n');
    svg += '\n';
  }
  return `${svg}${legend(lines)}\n</svg>\n`;
}
