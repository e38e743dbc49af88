import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../bench/results.ts';
import { floorNote } from '../../bench/suites/journey-notes.ts';

/** A measured page with only what the notes read: its median. */
function page(medianMs: number): CaseResult {
  return { name: 'case', role: 'ours', medianMs, samples: 1 };
}

describe('the note on the events page against its naive floor', () => {
  const ours = page(0.314);
  const floor = page(0.505);

  it('says the run was disturbed when the journeys’ identical first pages landed more than 5% apart', () => {
    // The full run of 2026-12-01 on a slow, noisy machine: it missed the bound at 0.62×.
    const note = floorNote(ours, floor, undefined, false, { ours: [page(0.339), page(0.249), page(0.314)], floor: [page(0.655), page(0.52), page(0.477)] });
    expect(note).toContain("The journeys' first pages, which do the same work, took 0.339 ms, 0.249 ms, 0.314 ms (36% apart): more than 5%");
    expect(note).toContain('its ratios say as much about that as about the code');
    expect(note).toContain("The floor's first pages took 0.655 ms, 0.520 ms, 0.477 ms (37% apart; 5% in an undisturbed SQLite run).");
  });

  it('says they agreed when they landed within 5%', () => {
    // The full run of 2026-11-30 05:34 UTC.
    const note = floorNote(ours, floor, undefined, false, { ours: [page(0.119), page(0.12), page(0.116)], floor: [page(0.296), page(0.287), page(0.282)] });
    expect(note).toContain('(3% apart): within 5%');
    expect(note).not.toContain('something slowed');
  });

  it('leaves the spread out when the run had one journey', () => {
    const note = floorNote(ours, floor, undefined, false, { ours: [page(0.3)], floor: [page(0.5)] });
    expect(note).not.toContain('first pages');
    expect(note.startsWith("api.fetch 0.314 ms against the naive floor's 0.505 ms. A CPU profile")).toBe(true);
  });
});
