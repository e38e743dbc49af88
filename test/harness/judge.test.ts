import { describe, expect, it } from 'vitest';
import { runConformance, summaryLine, tapReport, textReport, type Check, type HarnessConfig } from '../../harness/index.ts';
import { judge } from '../../harness/judge.ts';
import type { Ran } from '../../harness/run.ts';
import type { RawOutcome } from '../../harness/types.ts';

/** The judging stage, and the running stage that feeds it, with checks that send no requests. */
const CONFIG: HarnessConfig = {
  baseUrl: 'http://127.0.0.1:9',
  accountKey: 'unused',
  scopedKeys: [],
  // Only the budget probe before the first check sends a request; it learns nothing from this answer.
  fetch: async () => new Response('no requests expected', { status: 599 }),
};

const check = (id: string, run: Check['run'], flags?: Check['flags']): Check => ({ id, section: 'Test', title: `check ${id}`, flags, run });

describe('judge', () => {
  const ran = (id: string, outcome: RawOutcome): Ran => ({ check: check(id, async () => undefined), outcome, requests: 2, ms: 1.6 });

  it('judges each raw outcome: completed passes, failed and crashed fail, skipped and unselected skip with their reasons', () => {
    const report = judge('http://x', [
      ran('a.completed', { kind: 'completed' }),
      ran('a.failed', { kind: 'failed', message: 'expected 401, got 403' }),
      ran('a.crashed', { kind: 'crashed', message: "Cannot read properties of undefined (reading 'data')" }),
      ran('a.skipped', { kind: 'skipped', reason: 'no domain-scoped key was given' }),
      ran('a.unselected', { kind: 'not-selected', reason: 'destructive: run with --destructive' }),
      ran('a.na', { kind: 'not-applicable', reason: 'the hot-leads filter\'s name is not known', profileKey: 'hotLeadsParam' }),
    ], 10);
    expect(report.results.map((r) => [r.id, r.verdict, r.detail])).toEqual([
      ['a.completed', 'passed', undefined],
      ['a.failed', 'failed', 'expected 401, got 403'],
      ['a.crashed', 'failed', "the check could not complete: Cannot read properties of undefined (reading 'data')"],
      ['a.skipped', 'skipped', 'no domain-scoped key was given'],
      ['a.unselected', 'skipped', 'destructive: run with --destructive'],
      ['a.na', 'n/a', 'the hot-leads filter\'s name is not known'],
    ]);
    expect(report.results.at(-1)!.profileKey).toBe('hotLeadsParam');
    expect(report.totals).toEqual({ passed: 1, failed: 2, skipped: 2, 'n/a': 1 });
    expect(report.requests).toBe(10);
    expect(report.results[0]).toMatchObject({ section: 'Test', title: 'check a.completed', flags: [], requests: 2, ms: 2 });
  });

  it('passes nothing that did not complete: an empty run passes nothing', () => {
    expect(judge('http://x', [], 0).totals).toEqual({ passed: 0, failed: 0, skipped: 0, 'n/a': 0 });
    for (const outcome of [
      { kind: 'failed', message: 'm' },
      { kind: 'crashed', message: 'm' },
      { kind: 'skipped', reason: 'r' },
      { kind: 'not-selected', reason: 'r' },
      { kind: 'not-applicable', reason: 'r' },
    ] as RawOutcome[]) {
      expect(judge('http://x', [ran('x', outcome)], 0).results[0]!.verdict).not.toBe('passed');
    }
  });
});

describe('running, then judging', () => {
  it('judges a crashed check failed, whatever it threw', async () => {
    const report = await runConformance(CONFIG, [
      check('c.type-error', async () => {
        (undefined as unknown as { data: unknown[] }).data.length;
      }),
      check('c.throws-string', async () => {
        throw 'not an Error';
      }),
      check('c.rejects', () => Promise.reject(new RangeError('out of range'))),
    ]);
    expect(report.results.map((r) => r.verdict)).toEqual(['failed', 'failed', 'failed']);
    expect(report.results[0]!.detail).toMatch(/^the check could not complete: .*undefined/);
    expect(report.results[1]!.detail).toBe('the check could not complete: not an Error');
    expect(report.results[2]!.detail).toBe('the check could not complete: out of range');
  });

  it('judges a skipped check skipped with its reason, and a failed one failed with its message', async () => {
    const report = await runConformance(CONFIG, [check('c.skips', async (t) => t.skip('needs 2 domain-scoped keys')), check('c.fails', async (t) => t.assert(1 > 2, 'one is not above two'))]);
    expect(report.results.map((r) => [r.verdict, r.detail])).toEqual([
      ['skipped', 'needs 2 domain-scoped keys'],
      ['failed', 'one is not above two'],
    ]);
  });

  it('judges a check whose precondition cannot be established n/a, with its reason and the profile key that would enable it', async () => {
    const report = await runConformance(CONFIG, [check('c.na', async (t) => t.notApplicable('no candidate name narrowed the list', 'lastSeenAfterParam')), check('c.na-data', async (t) => t.notApplicable('only 3 people'))]);
    expect(report.results.map((r) => [r.verdict, r.detail, r.profileKey])).toEqual([
      ['n/a', 'no candidate name narrowed the list', 'lastSeenAfterParam'],
      ['n/a', 'only 3 people', undefined],
    ]);
    expect(textReport(report)).toContain('n/a  c.na: check c.na\n       no candidate name narrowed the list (set "lastSeenAfterParam" in --profile to run it)');
    expect(tapReport(report)).toContain('ok 1 - c.na - check c.na # SKIP n/a: no candidate name narrowed the list');
    expect(summaryLine(report)).toBe('0 passed, 0 failed, 0 skipped, 2 n/a');
  });

  it('skips unselected destructive, slow and filtered-out checks with the reason, without running them', async () => {
    const called: string[] = [];
    const spy = (id: string, flags?: Check['flags']) => check(id, async () => void called.push(id), flags);
    const checks = [spy('x.destructive', ['destructive']), spy('x.slow', ['slow']), spy('y.other'), spy('x.plain')];
    const report = await runConformance({ ...CONFIG, only: ['x.'] }, checks);
    expect(called).toEqual(['x.plain']);
    expect(Object.fromEntries(report.results.map((r) => [r.id, [r.verdict, r.detail]]))).toEqual({
      'x.destructive': ['skipped', 'destructive: run with --destructive'],
      'x.slow': ['skipped', 'slow: run with --slow'],
      'y.other': ['skipped', 'not selected by --only'],
      'x.plain': ['passed', undefined],
    });
    expect(report.totals).toEqual({ passed: 1, failed: 0, skipped: 3, 'n/a': 0 });
  });

  it('runs destructive and slow checks when asked, destructive ones last', async () => {
    const called: string[] = [];
    const spy = (id: string, flags?: Check['flags']) => check(id, async () => void called.push(id), flags);
    const report = await runConformance({ ...CONFIG, destructive: true, slow: true }, [spy('a.destructive', ['destructive']), spy('b.slow', ['slow']), spy('c.plain')]);
    expect(called).toEqual(['b.slow', 'c.plain', 'a.destructive']);
    expect(report.totals).toEqual({ passed: 3, failed: 0, skipped: 0, 'n/a': 0 });
  });

  it('passes a check only by running it to completion', async () => {
    const called: string[] = [];
    const checks = ['p.one', 'p.two', 'p.three'].map((id, i) =>
      check(id, async (t) => {
        called.push(id);
        if (i === 1) t.fail('the second fails');
      }, i === 2 ? ['destructive'] : undefined),
    );
    const report = await runConformance(CONFIG, checks);
    const passed = report.results.filter((r) => r.verdict === 'passed').map((r) => r.id);
    expect(passed).toEqual(['p.one']);
    for (const id of passed) expect(called).toContain(id);
    // One request only: the budget probe before the first check.
    expect(report.requests).toBe(1);
  });
});
