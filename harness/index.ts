/**
 * The conformance harness as a library: point it at any implementation of the Visitor
 * Intelligence API and get one verdict per observable statement of the spec.
 */
import { ALL_CHECKS } from './checks/index.ts';
import { judge } from './judge.ts';
import { runChecks, type Ran } from './run.ts';
import type { Check, HarnessConfig, Report } from './types.ts';

export { ALL_CHECKS } from './checks/index.ts';
export { jsonReport } from './report/json.ts';
export { junitReport } from './report/junit.ts';
export { summaryLine } from './report/summary.ts';
export { tapReport } from './report/tap.ts';
export { textReport } from './report/text.ts';
export type { Check, CheckResult, Flag, HarnessConfig, Profile, Report, Verdict } from './types.ts';
export { DEFAULT_PROFILE, VERDICTS } from './types.ts';
export { baselineLines, baselineOf, compareBaseline, parseBaseline, type Baseline, type BaselineComparison } from './baseline.ts';

/** Runs the checks (all by default) against `config.baseUrl` and returns the judged report. */
export async function runConformance(config: HarnessConfig, checks: Check[] = ALL_CHECKS, onEach?: (ran: Ran) => void): Promise<Report> {
  const { ran, requests, plan, spent } = await runChecks(checks, config, onEach);
  return judge(config.baseUrl, ran, requests, plan, spent);
}
