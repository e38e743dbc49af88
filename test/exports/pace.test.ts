import { beforeEach, describe, expect, it } from 'vitest';
import { ExportPace } from '../../core/exports/pace.ts';

/** Lets the current export slice end, and any busy spell (20 ms), so the next yield waits for a turn of its own. */
const sliceOver = () => new Promise((resolve) => setTimeout(resolve, 25));

/**
 * How many yields it takes to be given a full step again, trying at most five. A turn counts as
 * idle only if it comes within 0.25 ms of the yield, and on a loaded machine the OS may hold the
 * process longer now and then; five turns take well under the 20 ms that a busy spell lasts, so a
 * pace that wrongly stayed busy still gives none.
 */
async function yieldsUntilFullStep(pace: ExportPace): Promise<number> {
  for (let yields = 1; yields <= 5; yields++) if ((await pace.yield()) === 1) return yields;
  return Infinity;
}

describe('export steps sharing the event loop with requests', () => {
  let pace: ExportPace;
  beforeEach(() => {
    pace = new ExportPace();
  });

  it('asks for a full step while nothing else runs, and for a twelfth of one once other work holds the thread between turns', async () => {
    await sliceOver();
    expect(await yieldsUntilFullStep(pace)).toBeLessThanOrEqual(5);
    await sliceOver();
    const step = pace.yield();
    // A request's work (here 1 ms of it) runs before the export's turn comes.
    const until = performance.now() + 1;
    while (performance.now() < until);
    expect(await step).toBe(1 / 12);
  });

  it('keeps taking small steps for 20 ms after a request reached the API, then full ones once none has come', async () => {
    await sliceOver();
    pace.noteRequest();
    // Nothing else runs now, but requests under load come every millisecond or two.
    expect(await pace.yield()).toBe(1 / 12);
    expect(await pace.yield()).toBe(1 / 12);
    await sliceOver();
    expect(await yieldsUntilFullStep(pace)).toBeLessThanOrEqual(5);
  });

  it('is one API\'s own: another API\'s requests leave its steps full', async () => {
    const other = new ExportPace();
    await sliceOver();
    other.noteRequest();
    expect(await yieldsUntilFullStep(pace)).toBeLessThanOrEqual(5);
    expect(await other.yield()).toBe(1 / 12);
  });

  it('takes one small step after other work held the thread, and full ones again within a few turns when no request came', async () => {
    await sliceOver();
    const step = pace.yield();
    // Work that is no request (a timer, a task of the garbage collector) holds the thread between turns.
    const until = performance.now() + 1;
    while (performance.now() < until);
    expect(await step).toBe(1 / 12);
    expect(await yieldsUntilFullStep(pace)).toBeLessThanOrEqual(5);
  });
});
