#!/usr/bin/env node
/**
 * `visitor-intelligence conformance --base-url URL --key KEY [--scoped-key domain=key]...`
 * Runs unchanged under Node, Bun and Deno: it needs only fetch and node:util's parseArgs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { jsonReport, junitReport, runConformance, tapReport, textReport, type Profile } from './index.ts';

const USAGE = `Usage: visitor-intelligence conformance --base-url URL --key ACCOUNT_KEY [options]

  --scoped-key DOMAIN=KEY   a domain-scoped key and its domain (repeatable)
  --keys FILE               read baseUrl, accountKey and scopedKeys from a JSON file (npm start --keys-out)
  --profile FILE            JSON with the choices the spec leaves open (filter names, …)
  --format text|tap|json|junit   output format (default text)
  --out FILE                also write the report to FILE
  --destructive             also run checks that exhaust limits (hourly budget, export slots)
  --slow                    also run checks that wait on the server's clock (900 s link expiry)
  --only PREFIX             run only checks whose id starts with PREFIX (repeatable)`;

const proc = globalThis.process;

function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      'scoped-key': { type: 'string', multiple: true },
      keys: { type: 'string' },
      profile: { type: 'string' },
      format: { type: 'string', default: 'text' },
      out: { type: 'string' },
      destructive: { type: 'boolean', default: false },
      slow: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || (positionals.length > 0 && positionals[0] !== 'conformance')) {
    console.log(USAGE);
    return Promise.resolve(values.help ? 0 : 2);
  }
  const file = values.keys ? (JSON.parse(readFileSync(values.keys, 'utf8')) as { baseUrl: string; accountKey: string; scopedKeys?: { domain: string; key: string }[] }) : undefined;
  const baseUrl = values['base-url'] ?? file?.baseUrl;
  const accountKey = values.key ?? file?.accountKey;
  if (!baseUrl || !accountKey) {
    console.error(`--base-url and --key are required (or --keys FILE).\n\n${USAGE}`);
    return Promise.resolve(2);
  }
  const scopedKeys = (values['scoped-key'] ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--scoped-key takes DOMAIN=KEY, not ${pair}`);
    return { domain: pair.slice(0, at), key: pair.slice(at + 1) };
  });
  const profile = values.profile ? (JSON.parse(readFileSync(values.profile, 'utf8')) as Partial<Profile>) : undefined;
  const format = values.format as string;
  const render = { text: textReport, tap: tapReport, json: jsonReport, junit: junitReport }[format];
  if (!render) {
    console.error(`--format must be text, tap, json or junit, not ${format}`);
    return Promise.resolve(2);
  }
  return runConformance({
    baseUrl,
    accountKey,
    scopedKeys: scopedKeys.length > 0 ? scopedKeys : (file?.scopedKeys ?? []).map(({ domain, key }) => ({ domain, key })),
    profile,
    destructive: values.destructive,
    slow: values.slow,
    only: values.only,
  }).then((report) => {
    const output = render(report);
    console.log(output);
    if (values.out) writeFileSync(values.out, `${output}\n`);
    return report.totals.failed > 0 ? 1 : 0;
  });
}

const args = proc?.argv?.slice(2) ?? [];
main(args).then(
  (code) => proc && (proc.exitCode = code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    if (proc) proc.exitCode = 2;
  },
);
