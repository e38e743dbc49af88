import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../bench/results.ts';
import { workNote } from '../../bench/suites/http.ts';

/** A measured case with only what the notes read: its rate and, for a bare server, its CPU a request. */
function measured(perSecond: number, serverCpuUs?: CaseResult['serverCpuUs']): CaseResult {
  return { name: 'case', role: 'floor', perSecond, unit: 'req/s', samples: 1, ...(serverCpuUs ? { serverCpuUs } : {}) };
}

describe('the note on whether a req/s bound is within the page’s reach', () => {
  // Deno's events page in the full run of 2026-11-29 12:37 UTC: 9,003 pages/s in-process, a bare
  // server spending 16 + 14 µs of CPU a request, and a bound of 8,289 req/s.
  const work = measured(9003);
  const ceiling = measured(22320, { user: 16, system: 14 });

  it('calls a bound the work alone allows out of reach when the work and the bare server’s HTTP CPU together take more than a request has', () => {
    const note = workNote('1.5× the naive server', 8289, work, 'deno', ceiling);
    expect(note).toContain("within the work's reach alone");
    expect(note).toContain('~111 µs a page');
    expect(note).toContain('~30 µs');
    expect(note).toContain('come to ~141 µs');
    expect(note).toContain('against ~121 µs a request');
    expect(note).toMatch(/: out of reach\. $/);
  });

  it('calls it within reach when both fit in the time a request has', () => {
    const note = workNote('1.5× the naive server', 6000, work, 'deno', ceiling);
    expect(note).toContain('against ~167 µs a request');
    expect(note).toMatch(/, within reach\. $/);
  });

  it('judges the work alone when no CPU of a bare server pinned to one core is given', () => {
    expect(workNote('1.5× the naive server', 8289, work, 'deno')).toContain("is within the work's reach; what stands in the way is the work and HTTP together");
    expect(workNote('1.5× the naive server', 8289, work, 'deno', measured(22320))).toContain('what stands in the way is the work and HTTP together');
  });

  it('calls a bound past the work’s own rate out of reach whatever HTTP costs', () => {
    expect(workNote('1.5× the naive server', 11408, measured(11209), 'bun', ceiling)).toContain('whatever HTTP costs: out of reach');
  });
});
