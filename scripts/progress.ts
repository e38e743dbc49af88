/**
 * The progress bar of a long run a person waits for (a bench suite, a conformance run, a `load`):
 * one bar on stderr, its steps the cases, checks or items.
 * Silent in CI and when stderr is not a terminal, so logs and piped output stay plain.
 */
import { Presets, SingleBar } from 'cli-progress';

/** What a suite tells of its progress. */
export interface Progress {
  /** The suite will take `total` steps more. */
  start(total: number): void;
  /** `count` steps done (one unless told); `name` is what comes next, when known. */
  step(name?: string, count?: number): void;
  stop(): void;
}

/** Progress nobody sees. */
export const QUIET: Progress = { start() {}, step() {}, stop() {} };

/** A bar for `suite` that fits the terminal's width. */
export function terminalBar(suite: string): Progress {
  if (process.env.CI || !process.stderr.isTTY) return QUIET;
  const columns = process.stderr.columns ?? 80;
  // A label too long for the line (a file's name) is cut, so the bar and its count still show.
  const label = clipTo(suite, Math.max(8, columns - 40));
  const barsize = Math.max(10, Math.min(30, columns - label.length - 40));
  // What is left of the line after the label, the bar and the count names the case.
  const room = Math.max(0, columns - label.length - barsize - 20);
  const bar = new SingleBar({ stream: process.stderr, format: `${label} [{bar}] {value}/{total} {case}`, barsize, hideCursor: true, clearOnComplete: true, linewrap: false }, Presets.shades_classic);
  let started = false;
  return {
    start(total) {
      if (started) bar.setTotal(bar.getTotal() + total);
      else bar.start(total, 0, { case: '' });
      started = true;
    },
    step(name, count = 1) {
      if (started) bar.increment(count, { case: clipTo(name ?? '', room) });
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/** `text` in at most `room` characters: cut with an ellipsis when longer. */
function clipTo(text: string, room: number): string {
  return text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text;
}
