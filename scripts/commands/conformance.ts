import { readFileSync, writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Profile } from '../../harness/index.ts';
import { CliError, reason } from './errors.ts';
import { collect } from './options.ts';
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
}

interface KeysFile {
  baseUrl: string;
  accountKey: string;
  scopedKeys?: { domain: string; key: string }[];
}

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
  const { ALL_CHECKS, jsonReport, junitReport, runConformance, tapReport, textReport } = await import('../../harness/index.ts');
  const render = { text: textReport, tap: tapReport, json: jsonReport, junit: junitReport }[flags.format];
  const report = await withWebhookChecks(flags, (webhookChecks) => runConformance({ baseUrl, accountKey, scopedKeys, profile, destructive: flags.destructive, slow: flags.slow, only: flags.only }, [...ALL_CHECKS, ...webhookChecks]));
  const output = render(report);
  console.log(output);
  if (flags.out) writeFileSync(flags.out, `${output}\n`);
  process.exitCode = report.totals.failed > 0 ? 1 : 0;
}
