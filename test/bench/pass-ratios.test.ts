import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../bench/results.ts';
import { passRatioNote } from '../../bench/suites/pass-ratios.ts';

/** A paging case with only what the note reads: its passes' medians. */
function withPasses(...medians: number[]): CaseResult {
  return { name: 'case', role: 'ours', samples: medians.length, passes: medians.map((medianMs, i) => ({ atS: i, medianMs })) };
}

describe('the pass-by-pass note on a ratio of two paging cases', () => {
  it('gives the median of the passes’ own ratios, the fastest passes’ ratio and each case’s spread', () => {
    // The people and events pages of the full run of 2026-12-01 23:00 UTC: pooled medians 1.44× apart.
    const people = withPasses(0.26, 0.284, 0.168, 0.24, 0.269, 0.174, 0.15, 0.247, 0.153, 0.192, 0.182, 0.241);
    const events = withPasses(0.234, 0.215, 0.162, 0.203, 0.132, 0.178, 0.114, 0.113, 0.176, 0.151, 0.171, 0.144);
    expect(passRatioNote(people, events)).toBe(
      "Pass by pass (12 interleaved passes): the ratio's median 1.23× (0.87–2.19×), the fastest passes' 1.33×; each case's passes spread 89% and 107% from fastest to slowest. ",
    );
  });

  it('pairs the passes by their order, since pass i of each case ran in the same round', () => {
    const note = passRatioNote(withPasses(0.2, 0.4), withPasses(0.1, 0.4));
    expect(note).toContain("the ratio's median 1.50× (1.00–2.00×), the fastest passes' 2.00×");
  });

  it('says nothing for cases measured without passes', () => {
    expect(passRatioNote({ name: 'case', role: 'ours', medianMs: 0.2, samples: 1 }, withPasses(0.1, 0.1))).toBe('');
  });
});
