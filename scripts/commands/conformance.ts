import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Baseline, Profile, Report } from '../../harness/index.ts';
import { CliError, reason } from './errors.ts';
import { collect, wholeNumber } from './options.ts';
import { terminalBar } from '../progress.ts';
import { addWebhookOptions, withWebhookChecks, type ConformanceWebhookFlags } from '../webhooks/conformance-webhooks.ts';

interface ConformanceFlags extends ConformanceWebhookFlags {
  baseUrl?: string;
  key?: string;
  scopedKey?: { domain: string; key: string }[];
  keys?: string;
  profile?: string;
  format: 'text' | 'tap' | 'json' | 'junit';
  out?: string;
  destructive: boolean;
  slow: boolean;
  only?: string[];
  waitForBudget: boolean;
  maxRequests?: number;
  baseline?: string;
  updateBaseline: boolean;
}

interface KeysFile {
  baseUrl: string;
  accountKey: string;
  scopedKeys?: { domain: string; key: string }[];
  /** Further account keys of the same account: the shared-budget check needs two. */
  accountKeys?: string[];
  /** The bearer token of the /_admin/ routes, when the server is this package's (serve --keys-out writes it). */
  adminToken?: string;
}

/** Exit status when the run did not start because the server's request budget was short. */
const BUDGET_SHORT = 3;
/** Exit status when the run did not start because no request got an answer. */
const UNREACHABLE = 4;

const EXIT_CODES = `
Exit code:
  0 every check passed (with --baseline: only its known failures failed)
  1 a check failed (with --baseline: a new failure, or a known one now passes)
  2 a usage error (a bad flag, an unreadable --keys, --profile or --baseline file)
  3 not started: the server's hourly request budget is short of what the run needs
  4 not started: the server cannot be reached at the base URL (nothing listens there)`;

const FORMATS = ['text', 'tap', 'json', 'junit'];

/**
 * `conformance`: the black-box harness against any implementation over HTTP. It needs only
 * fetch, so it runs unchanged under Node, Bun and Deno; exit 1 when a check failed.
 */
export function registerConformance(program: Command): void {
  addWebhookOptions(program.command('conformance'))
    .description('check an implementation of the API over HTTP, one statement of the spec at a time')
    .option('--base-url <url>', 'where the API answers')
    .option('--key <key>', 'an account key')
    .option('--scoped-key <domain=key>', 'a domain-scoped key and its domain (repeatable)', collect(scopedKey))
    .option('--keys <file>', 'read baseUrl, accountKey and scopedKeys from a JSON file (serve --keys-out)')
    .option('--profile <file>', 'JSON with the choices the spec leaves open (filter names, …)')
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('text'))
    .option('--out <file>', 'also write the report to this file')
    .option('--destructive', 'also run checks that exhaust limits (hourly budget, export slots)', false)
    .option('--slow', "also run checks that wait on the server's clock (900 s link expiry)", false)
    .option('--only <prefix>', 'run only checks whose id starts with this (repeatable)', collect(String))
    .option('--wait-for-budget', "when the server's hourly budget is short of what the run needs, wait for the window to reopen instead of stopping", false)
    .option('--max-requests <n>', 'send at most N requests; checks that would need more are skipped', wholeNumber(0, 1_000_000_000))
    .option('--baseline <file>', 'known failures by check id (JSON): exit 0 when only those fail, 1 on a new failure or an unexpected pass')
    .option('--update-baseline', 'write this run\'s failures to the --baseline file', false)
    .addHelpText('after', EXIT_CODES)
    .action((flags: ConformanceFlags) => conformance(flags));
}

function scopedKey(pair: string): { domain: string; key: string } {
  const at = pair.indexOf('=');
  if (at <= 0) throw new CliError(`--scoped-key takes DOMAIN=KEY, not ${pair}`);
  return { domain: pair.slice(0, at), key: pair.slice(at + 1) };
}

function readJson<T>(flag: string, file: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new CliError(`${flag} ${file}: ${reason(error)}`);
  }
}

async function conformance(flags: ConformanceFlags): Promise<void> {
  const file = flags.keys === undefined ? undefined : readJson<KeysFile>('--keys', flags.keys);
  const baseUrl = flags.baseUrl ?? file?.baseUrl;
  const accountKey = flags.key ?? file?.accountKey;
  if (!baseUrl || !accountKey) throw new CliError('--base-url and --key are required (or --keys FILE)');
  const scopedKeys = flags.scopedKey ?? (file?.scopedKeys ?? []).map(({ domain, key }) => ({ domain, key }));
  const profile = flags.profile === undefined ? undefined : readJson<Partial<Profile>>('--profile', flags.profile);
  // Loaded here, not with the command line: the other commands do not need the harness.
  const { ALL_CHECKS, baselineLines, baselineOf, compareBaseline, jsonReport, junitReport, parseBaseline, runConformance, tapReport, textReport } = await import('../../harness/index.ts');
  if (flags.updateBaseline && !flags.baseline) throw new CliError('--update-baseline needs --baseline FILE');
  // A baseline that does not exist yet is written by --update-baseline; otherwise it must be readable.
  let baseline: Baseline | undefined;
  if (flags.baseline && !(flags.updateBaseline && !existsSync(flags.baseline))) {
    try {
      baseline = parseBaseline(readJson<unknown>('--baseline', flags.baseline));
    } catch (error) {
      throw error instanceof CliError ? error : new CliError(`--baseline ${flags.baseline}: ${reason(error)}`);
    }
  }
  const render = { text: textReport, tap: tapReport, json: jsonReport, junit: junitReport }[flags.format];
  const budget = { accountKeys: file?.accountKeys ?? [], maxRequests: flags.maxRequests, waitForBudget: flags.waitForBudget, onWait: (message: string) => console.error(message) };
  const bar = terminalBar('Conformance');
  const report = await withWebhookChecks(flags, (webhookChecks) => {
    const checks = [...ALL_CHECKS, ...webhookChecks];
    bar.start(checks.length);
    return runConformance({ baseUrl, accountKey, scopedKeys, profile, destructive: flags.destructive, slow: flags.slow, only: flags.only, ...budget }, checks, (ran) => bar.step(ran.check.id));
  }).finally(() => bar.stop());
  if (report.stopped) {
    // One clear message instead of a report of checks that never ran.
    console.error(report.stopped);
    if (report.stoppedBy === 'budget') console.error(budgetWaysOut(baseUrl, flags.keys, file?.adminToken));
    process.exitCode = report.stoppedBy === 'unreachable' ? UNREACHABLE : BUDGET_SHORT;
    return;
  }
  const output = render(report);
  console.log(output);
  if (report.budgetSpent) console.error(`Some checks were not run: ${report.budgetSpent}. ${budgetWaysOut(baseUrl, flags.keys, file?.adminToken)}`);
  if (flags.out) writeFileSync(flags.out, `${output}\n`);
  process.exitCode = exitCode(report, flags, baseline, { baselineLines, baselineOf, compareBaseline });
}

/**
 * The ways out of a spent hourly budget on this package's own server, besides waiting: the spec's
 * limit is the server's, so only its admin can give the budget back or raise it.
 */
function budgetWaysOut(baseUrl: string, keysFile: string | undefined, adminToken: string | undefined): string {
  const reset = `${baseUrl.replace(/\/+$/, '')}/_admin/reset`;
  const token = adminToken && keysFile ? `Authorization: Bearer and the adminToken of ${keysFile}` : 'Authorization: Bearer and its admin token';
  const server = adminToken ? 'This is visitor-intelligence serve' : 'If the server is visitor-intelligence serve';
  return `${server}: POST ${reset} (${token}) gives the budget back at once, and serve --rate-limit N starts it with N requests an hour.`;
}

/** The exit status: failures decide it, or with a baseline only what changed; --update-baseline rewrites the file and exits 0. */
function exitCode(report: Report, flags: ConformanceFlags, baseline: Baseline | undefined, harness: Pick<typeof import('../../harness/index.ts'), 'baselineLines' | 'baselineOf' | 'compareBaseline'>): number {
  if (flags.baseline && flags.updateBaseline) {
    const written = harness.baselineOf(report);
    writeFileSync(flags.baseline, `${JSON.stringify(written, null, 2)}\n`);
    console.error(`Baseline ${flags.baseline}: ${Object.keys(written.failures).length} known failure(s) written.`);
    return 0;
  }
  if (!flags.baseline || !baseline) return report.totals.failed > 0 ? 1 : 0;
  const comparison = harness.compareBaseline(report, baseline);
  for (const line of harness.baselineLines(comparison, flags.baseline)) console.error(line);
  return comparison.ok ? 0 : 1;
}
