/**
 * The little the charts share, as SVG strings: a plot area with axes and ticks, a legend, text
 * escaping and round tick steps. Hand-built so the repository needs no chart library.
 */

/** Series colours, readable on white and for common colour blindness (Okabe–Ito). */
export const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'];

/** Chart size and the plot area inside it. */
const BOX = { width: 720, height: 400, left: 72, right: 24, top: 48, bottom: 84 };
/** The plot area inside {@link BOX}: y0 is its bottom edge, y1 its top. */
export const PLOT = { x0: BOX.left, x1: BOX.width - BOX.right, y0: BOX.height - BOX.bottom, y1: BOX.top };

/** Text for inside SVG elements and attributes. */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round tick values from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten. */
export function ticks(max: number, wanted = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / wanted;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** A compact tick label: 25k, 1.5, 0.25. */
export function tickLabel(value: number): string {
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return Number(value.toPrecision(3)).toString();
}

/** Maps a value on [0, max] to a pixel between `from` and `to`. */
export function scale(max: number, from: number, to: number): (v: number) => number {
  return (v) => from + ((to - from) * v) / (max || 1);
}

/** The opening of a chart: white background, title and subtitle. */
export function open(title: string, subtitle: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${BOX.width}" height="${BOX.height}" viewBox="0 0 ${BOX.width} ${BOX.height}" font-family="Helvetica, Arial, sans-serif" font-size="12">\n` +
    `<rect width="100%" height="100%" fill="#fff"/>\n` +
    `<text x="${BOX.left}" y="22" font-size="15" font-weight="bold">${esc(title)}</text>\n` +
    `<text x="${BOX.left}" y="38" fill="#555">${esc(subtitle)}</text>\n`
  );
}

/** The y axis with grid lines and its label; `yTicks` from {@link ticks}. */
export function yAxis(yTicks: number[], label: string): string {
  const y = scale(yTicks[yTicks.length - 1]!, PLOT.y0, PLOT.y1);
  const lines = yTicks.map(
    (v) =>
      `<line x1="${PLOT.x0}" x2="${PLOT.x1}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>` +
      `<text x="${PLOT.x0 - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#333">${esc(tickLabel(v))}</text>`,
  );
  const mid = (PLOT.y0 + PLOT.y1) / 2;
  return `${lines.join('\n')}\n<text transform="translate(18 ${mid}) rotate(-90)" text-anchor="middle" fill="#333">${esc(label)}</text>\n`;
}

/** The x axis line and its label (tick labels are the chart's own). */
export function xAxis(label: string): string {
  return (
    `<line x1="${PLOT.x0}" x2="${PLOT.x1}" y1="${PLOT.y0}" y2="${PLOT.y0}" stroke="#333"/>\n` +
    `<text x="${(PLOT.x0 + PLOT.x1) / 2}" y="${PLOT.y0 + 40}" text-anchor="middle" fill="#333">${esc(label)}</text>\n`
  );
}

/** A one-row legend under the plot. */
export function legend(entries: { label: string; colour: string }[]): string {
  let x = PLOT.x0;
  const y = BOX.height - 18;
  return entries
    .map(({ label, colour }) => {
      const item = `<rect x="${x}" y="${y - 10}" width="14" height="10" fill="${colour}"/><text x="${x + 20}" y="${y}" fill="#333">${esc(label)}</text>`;
      x += 34 + label.length * 6.5;
      return item;
    })
    .join('\n');
}

/** A chart with nothing to plot, saying why, so the file still exists and reads as intended. */
export function emptyChart(title: string, why: string): string {
  return `${open(title, '')}<text x="${BOX.width / 2}" y="${BOX.height / 2}" text-anchor="middle" fill="#777" font-size="14">${esc(why)}</text>\n</svg>\n`;
}
