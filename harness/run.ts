import { CheckContext, CheckFailed, CheckNotApplicable, CheckSkipped, Discovery } from './context.ts';
import { BudgetSpent, HttpClient } from './http.ts';
import { planRun, type Plan } from './plan.ts';
import type { Check, HarnessConfig, RawOutcome } from './types.ts';
import { DEFAULT_PROFILE } from './types.ts';

/** One check's raw outcome and what it cost. */
export interface Ran {
  check: Check;
  outcome: RawOutcome;
  requests: number;
  ms: number;
}

/** Why a check is not run with this configuration, or null when it is. */
function notSelected(check: Check, config: HarnessConfig): string | null {
  if (config.only && !config.only.some((prefix) => check.id.startsWith(prefix))) return 'not selected by --only';
  if (check.flags?.includes('destructive') && !config.destructive) return 'destructive: run with --destructive';
  if (check.flags?.includes('slow') && !config.slow) return 'slow: run with --slow';
  return null;
}

/** What an exception thrown by a check means. */
function outcomeOf(error: unknown): RawOutcome {
  if (error instanceof CheckFailed) return { kind: 'failed', message: error.message };
  if (error instanceof CheckNotApplicable) return { kind: 'not-applicable', reason: error.message, profileKey: error.profileKey };
  if (error instanceof CheckSkipped || error instanceof BudgetSpent) return { kind: 'skipped', reason: error.message };
  return { kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The running stage: plans the run against the server's budget, then runs each selected check in
 * order and records what happened, judging nothing. A short budget (unless `waitForBudget`) or a
 * server that cannot be reached stops the run before its first check: every check is then skipped
 * with the plan's message.
 */
export async function runChecks(checks: Check[], config: HarnessConfig, onEach?: (ran: Ran) => void): Promise<{ ran: Ran[]; requests: number; plan: Plan; spent?: string }> {
  const profile = { ...DEFAULT_PROFILE, ...config.profile };
  const http = new HttpClient(config.baseUrl.replace(/\/+$/, ''), config.accountKey, config.fetch ?? fetch, config.maxRequests);
  const context = new CheckContext(
    { baseUrl: http.baseUrl, accountKey: config.accountKey, scopedKeys: config.scopedKeys, accountKeys: config.accountKeys ?? [] },
    profile,
    http,
    new Discovery(http, profile),
    config.profile ?? {},
  );
  // Destructive checks go last, and those spending the hourly budget after them: once a limit
  // is spent, the checks behind it could not run. The sort is stable, so order is kept otherwise.
  const rank = (c: Check) => (c.flags?.includes('budget') ? 2 : c.flags?.includes('destructive') ? 1 : 0);
  const ordered = [...checks].sort((a, b) => rank(a) - rank(b));
  const selected = ordered.filter((c) => notSelected(c, config) === null);
  const plan = await planRun(http, selected, profile, { wait: config.waitForBudget, maxRequests: config.maxRequests, sleep: config.sleep ?? sleepFor, onWait: config.onWait });
  const ran: Ran[] = [];
  for (const check of ordered) {
    const reason = notSelected(check, config);
    const before = http.count;
    const started = performance.now();
    let outcome: RawOutcome;
    if (reason) outcome = { kind: 'not-selected', reason };
    else if (plan.stopped) outcome = { kind: 'skipped', reason: plan.stoppedBy === 'unreachable' ? 'not run: the server cannot be reached (see the message above)' : 'not run: the request budget is short (see the message above)' };
    // Once the account's budget is spent, every later check would only meet 429s.
    else if (http.spent && !check.flags?.includes('budget')) outcome = { kind: 'skipped', reason: http.spent };
    else if (http.count >= http.maxRequests) outcome = { kind: 'skipped', reason: `not run: --max-requests ${http.maxRequests} reached` };
    else {
      http.allowRateLimited = check.flags?.includes('budget') ?? false;
      try {
        await check.run(context);
        outcome = { kind: 'completed' };
      } catch (error) {
        outcome = outcomeOf(error);
      } finally {
        http.allowRateLimited = false;
      }
    }
    const entry = { check, outcome, requests: http.count - before, ms: performance.now() - started };
    ran.push(entry);
    onEach?.(entry);
  }
  return { ran, requests: http.count, plan, ...(http.spent === undefined ? {} : { spent: http.spent }) };
}
