import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { SeedProgress } from './seed.ts';

/** A progress display that can be fed seeding progress and then stopped. */
export interface ProgressDisplay {
  update(p: SeedProgress): void;
  stop(): void;
}

/** A display that shows nothing: for callers that asked for no progress, and where bars would be noise. */
export const SILENT: ProgressDisplay = { update() {}, stop() {} };

/**
 * One bar per seeding phase on stderr. Silent in CI and when stderr is not a terminal, so
 * logs and piped output stay free of control characters.
 */
export function terminalProgress(label: string): ProgressDisplay {
  if (process.env.CI || !process.stderr.isTTY) return SILENT;
  // The label, a phase of 9, brackets and a count of up to 15 characters leave the bar the rest of the line.
  const barsize = Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - label.length - 30));
  const multibar = new MultiBar(
    {
      stream: process.stderr,
      barsize,
      linewrap: false,
      format: `${label} {phase} [{bar}] {value}/{total}`,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
    },
    Presets.shades_classic,
  );
  const bars = new Map<SeedProgress['phase'], SingleBar>();
  return {
    update(p) {
      const phase = p.phase.padEnd(9);
      let bar = bars.get(p.phase);
      if (!bar) {
        bar = multibar.create(p.total, p.done, { phase });
        bars.set(p.phase, bar);
      }
      bar.setTotal(p.total);
      bar.update(p.done, { phase });
    },
    stop() {
      multibar.stop();
    },
  };
}
