import type { Plan } from './plan.ts';
import type { Ran } from './run.ts';
import type { CheckResult, Report, Verdict } from './types.ts';

/**
 * The judging stage: a completed check passed; a failed one, or one that crashed (the
 * implementation answered something the check could not even read), failed; a skipped or
 * unselected one was skipped, and one whose precondition could not be established is n/a, each
 * with its reason. Nothing is ever passed by default.
 */
export function judge(baseUrl: string, ran: Ran[], requests: number, plan?: Plan, spent?: string): Report {
  const results: CheckResult[] = ran.map(({ check, outcome, requests: used, ms }) => {
    const base = { id: check.id, section: check.section, title: check.title, flags: check.flags ?? [], requests: used, ms: Math.round(ms) };
    switch (outcome.kind) {
      case 'completed':
        return { ...base, verdict: 'passed' as Verdict };
      case 'failed':
        return { ...base, verdict: 'failed' as Verdict, detail: outcome.message };
      case 'crashed':
        return { ...base, verdict: 'failed' as Verdict, detail: `the check could not complete: ${outcome.message}` };
      case 'not-applicable':
        return { ...base, verdict: 'n/a' as Verdict, detail: outcome.reason, ...(outcome.profileKey ? { profileKey: outcome.profileKey } : {}) };
      case 'skipped':
      case 'not-selected':
        return { ...base, verdict: 'skipped' as Verdict, detail: outcome.reason };
    }
  });
  const totals: Record<Verdict, number> = { passed: 0, failed: 0, skipped: 0, 'n/a': 0 };
  for (const r of results) totals[r.verdict]++;
  const report: Report = { baseUrl, results, totals, requests };
  if (plan) report.plan = { needed: plan.needed, ...(plan.remaining === undefined ? {} : { remaining: plan.remaining }) };
  if (plan?.stopped) Object.assign(report, { stopped: plan.stopped, stoppedBy: plan.stoppedBy ?? 'budget' });
  if (spent !== undefined) report.budgetSpent = spent;
  return report;
}
