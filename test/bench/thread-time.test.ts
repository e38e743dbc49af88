import { describe, expect, it } from 'vitest';
import type { ThreadTime } from '../../bench/results.ts';
import { describeThreadTime, timed } from '../../bench/servers/thread-time.ts';

describe('where the measuring thread’s time went while a case was sampled', () => {
  it('sums the wall time of every window it times and returns what the work returned', async () => {
    const into: ThreadTime = { wallMs: 0, cpuMs: 0, runQueueMs: 0 };
    expect(await timed(into, () => new Promise((r) => setTimeout(() => r('first'), 20)))).toBe('first');
    const afterOne = into.wallMs;
    await timed(into, () => new Promise((r) => setTimeout(r, 20)));
    expect(afterOne).toBeGreaterThanOrEqual(19);
    expect(into.wallMs).toBeGreaterThanOrEqual(afterOne + 19);
  });

  it.runIf(process.platform === 'linux')('counts a busy thread as on a CPU or waiting for one, and a sleeping one as neither', async () => {
    const busy: ThreadTime = { wallMs: 0, cpuMs: 0, runQueueMs: 0 };
    await timed(busy, async () => {
      const started = performance.now();
      let x = 0;
      while (performance.now() - started < 100) x += Math.sqrt(x + 1);
      return x;
    });
    // The kernel brings a running thread's counters up to date at each tick (a few ms).
    expect(busy.cpuMs + busy.runQueueMs).toBeGreaterThan(0.8 * busy.wallMs);
    expect(busy.cpuMs + busy.runQueueMs).toBeLessThan(busy.wallMs + 15);
    const asleep: ThreadTime = { wallMs: 0, cpuMs: 0, runQueueMs: 0 };
    await timed(asleep, () => new Promise((r) => setTimeout(r, 100)));
    expect(asleep.cpuMs + asleep.runQueueMs).toBeLessThan(0.5 * asleep.wallMs);
  });

  it('says the split as shares of the wall time', () => {
    expect(describeThreadTime({ wallMs: 200, cpuMs: 197.8, runQueueMs: 0.8 })).toBe('98.9% on a CPU, 0.4% waiting for one');
  });
});
