/** `http.svg`: requests per second per runtime, our adapter beside the naive bare server of that runtime. */
import type { BenchRun, CaseResult } from '../results.ts';
import { COLOURS, PLOT, emptyChart, esc, legend, open, scale, tickLabel, ticks, xAxis, yAxis } from './svg-kit.ts';

const TITLE = 'Requests per second over loopback, by runtime';
const BARS = [
  { role: 'ours', label: 'our adapter' },
  { role: 'floor', label: 'naive bare server (floor)' },
] as const;

/** The chart as an SVG document, from the http suite's cases that carry `params.runtime`. */
export function httpChart(run: BenchRun): string {
  const suite = run.suites.find((s) => s.suite === 'http');
  // The journey page's cases, ours and the naive server's.
  const cases = suite?.cases.filter((c) => c.params?.runtime !== undefined && c.params.page === 'events' && c.perSecond !== undefined) ?? [];
  if (cases.length === 0) {
    const why = suite?.skipped?.[0] ?? (suite ? 'The http suite reported no per-runtime rates' : 'No http suite in this run');
    return emptyChart(TITLE, why.length > 90 ? `${why.slice(0, 87)}…` : why);
  }
  const runtimes = [...new Set(cases.map((c) => String(c.params!.runtime)))];
  // One bar per runtime and role: the first case of each pair, as the suite listed them.
  const pick = (runtime: string, role: CaseResult['role']) => cases.find((c) => String(c.params!.runtime) === runtime && c.role === role);
  const unit = cases[0]!.unit ?? 'req/s';
  const yTicks = ticks(Math.max(...cases.map((c) => c.perSecond!)));
  const y = scale(yTicks[yTicks.length - 1]!, PLOT.y0, PLOT.y1);
  const groupWidth = (PLOT.x1 - PLOT.x0) / runtimes.length;
  const barWidth = Math.min(70, (groupWidth * 0.7) / BARS.length);

  let svg = open(TITLE, `A page of 100 events per request; higher is better. Unit: ${unit}.`);
  svg += yAxis(yTicks, unit);
  svg += xAxis('runtime (our req/s ÷ the floor\'s)');
  runtimes.forEach((runtime, g) => {
    const centre = PLOT.x0 + groupWidth * (g + 0.5);
    const [ours, floor] = [pick(runtime, 'ours'), pick(runtime, 'floor')];
    const ratio = ours && floor ? ` (${(ours.perSecond! / floor.perSecond!).toFixed(2)}×)` : '';
    svg += `<text x="${centre.toFixed(1)}" y="${PLOT.y0 + 18}" text-anchor="middle" fill="#333">${esc(runtime + ratio)}</text>\n`;
    BARS.forEach((bar, b) => {
      const c = pick(runtime, bar.role);
      if (!c) return;
      const left = centre - (barWidth * BARS.length) / 2 + b * barWidth;
      const top = y(c.perSecond!);
      svg +=
        `<rect x="${(left + 2).toFixed(1)}" y="${top.toFixed(1)}" width="${(barWidth - 4).toFixed(1)}" height="${(PLOT.y0 - top).toFixed(1)}" fill="${COLOURS[b]}"><title>${esc(c.name)}</title></rect>` +
        `<text x="${(left + barWidth / 2).toFixed(1)}" y="${(top - 5).toFixed(1)}" text-anchor="middle" font-size="11" fill="#333">${esc(tickLabel(Math.round(c.perSecond!)))}</text>\n`;
    });
  });
  return `${svg}${legend(BARS.map((b, i) => ({ label: b.label, colour: COLOURS[i]! })))}\n</svg>\n`;
}
