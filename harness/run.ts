import { CheckContext, CheckFailed, CheckSkipped, Discovery } from './context.ts';
import { HttpClient } from './http.ts';
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

/** The running stage: runs each selected check in order and records what happened, judging nothing. */
export async function runChecks(checks: Check[], config: HarnessConfig, onEach?: (ran: Ran) => void): Promise<{ ran: Ran[]; requests: number }> {
  const profile = { ...DEFAULT_PROFILE, ...config.profile };
  const http = new HttpClient(config.baseUrl.replace(/\/+$/, ''), config.accountKey, config.fetch ?? fetch);
  const context = new CheckContext({ baseUrl: http.baseUrl, accountKey: config.accountKey, scopedKeys: config.scopedKeys }, profile, http, new Discovery(http, profile));
  // Destructive checks go last, and those spending the hourly budget after them: once a limit
  // is spent, the checks behind it could not run. The sort is stable, so order is kept otherwise.
  const rank = (c: Check) => (c.flags?.includes('budget') ? 2 : c.flags?.includes('destructive') ? 1 : 0);
  const ordered = [...checks].sort((a, b) => rank(a) - rank(b));
  const ran: Ran[] = [];
  for (const check of ordered) {
    const reason = notSelected(check, config);
    const before = http.count;
    const started = performance.now();
    let outcome: RawOutcome;
    if (reason) outcome = { kind: 'not-selected', reason };
    else {
      try {
        await check.run(context);
        outcome = { kind: 'completed' };
      } catch (error) {
        if (error instanceof CheckFailed) outcome = { kind: 'failed', message: error.message };
        else if (error instanceof CheckSkipped) outcome = { kind: 'skipped', reason: error.message };
        else outcome = { kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
      }
    }
    const entry = { check, outcome, requests: http.count - before, ms: performance.now() - started };
    ran.push(entry);
    onEach?.(entry);
  }
  return { ran, requests: http.count };
}
