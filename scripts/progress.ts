/**
 * The progress bar of a long run a person waits for (a bench suite, a conformance run): one bar on
 * stderr, its steps the cases or checks.
 * Silent in CI and when stderr is not a terminal, so logs and piped output stay plain.
 */
import { Presets, SingleBar } from 'cli-progress';

/** What a suite tells of its progress. */
export interface Progress {
  /** The suite will take `total` steps more. */
  start(total: number): void;
  /** One step done; `name` is what comes next, when known. */
  step(name?: string): void;
  stop(): void;
}

/** Progress nobody sees. */
export const QUIET: Progress = { start() {}, step() {}, stop() {} };

/** A bar for `suite` that fits the terminal's width. */
export function terminalBar(suite: string): Progress {
  if (process.env.CI || !process.stderr.isTTY) return QUIET;
  const columns = process.stderr.columns ?? 80;
  const barsize = Math.max(10, Math.min(30, columns - suite.length - 40));
  // What is left of the line after the label, the bar and the count names the case.
  const room = Math.max(0, columns - suite.length - barsize - 20);
  const clip = (name: string) => (name.length > room ? `${name.slice(0, Math.max(0, room - 1))}…` : name);
  const bar = new SingleBar({ stream: process.stderr, format: `${suite} [{bar}] {value}/{total} {case}`, barsize, hideCursor: true, clearOnComplete: true, linewrap: false }, Presets.shades_classic);
  let started = false;
  return {
    start(total) {
      if (started) bar.setTotal(bar.getTotal() + total);
      else bar.start(total, 0, { case: '' });
      started = true;
    },
    step(name) {
      if (started) bar.increment(1, { case: clip(name ?? '') });
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
