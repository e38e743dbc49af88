import { describe, expect, it } from 'vitest';
import { StallWatch } from '../../bench/servers/stall-watch.ts';

describe('a load generator’s account of what held it up during a page', () => {
  it('counts only the part of each stall and collection that falls within the page', () => {
    const watch = new StallWatch();
    watch.noteStall({ from: 0, to: 40, runQueueMs: 20 });
    watch.noteStall({ from: 100, to: 130, runQueueMs: 0 });
    watch.noteCollection({ from: 105, to: 112 });
    // A page from 20 to 120 ms: half the first stall (and half its run-queue time), 20 ms of the second, the whole collection.
    expect(watch.heldWithin(20, 120)).toEqual({ stallMs: 40, runQueueMs: 10, gcMs: 7 });
  });

  it('finds nothing in a page that no stall or collection touched', () => {
    const watch = new StallWatch();
    watch.noteStall({ from: 0, to: 40, runQueueMs: 40 });
    watch.noteCollection({ from: 50, to: 60 });
    expect(watch.heldWithin(60, 90)).toEqual({ stallMs: 0, runQueueMs: 0, gcMs: 0 });
  });

  it('never says the process waited for a CPU longer than it stood still', () => {
    const watch = new StallWatch();
    // The run-queue time is read over the whole late turn, which can start before the stall is counted.
    watch.noteStall({ from: 0, to: 20, runQueueMs: 30 });
    expect(watch.heldWithin(0, 20)).toEqual({ stallMs: 20, runQueueMs: 20, gcMs: 0 });
  });

  it('notes a stall of its own process when the event loop is blocked', async () => {
    const watch = new StallWatch(15, 5);
    watch.start();
    watch.start();
    await new Promise((r) => setTimeout(r, 20));
    const from = performance.now();
    while (performance.now() - from < 80);
    await new Promise((r) => setTimeout(r, 20));
    const held = watch.heldWithin(from, performance.now());
    expect(held.stallMs).toBeGreaterThan(50);
    expect(held.runQueueMs).toBeLessThanOrEqual(held.stallMs);
  });
});
