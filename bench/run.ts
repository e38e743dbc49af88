/**
 * `npm run bench`: builds (or reuses) the benchmark data, runs the suites in order, prints the
 * table and writes latest.json, latest.md and the SVG charts.
 *
 *   npm run bench -- --save                      # the full run, replacing the committed bench/results
 *   npm run bench -- --tiny                      # the CI configuration: seconds, reports in a temporary folder
 *   npm run bench -- --seed 7 --people 5000 --events 2000000 --suites journey-paging,http --out /tmp/bench
 *   npm run bench -- --postgres postgres://postgres@127.0.0.1:5432/postgres   # paging, export and processes on PostgreSQL
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runCommandLine, UsageError } from './command-line.ts';
import { benchDatabase, DEFAULT_DATA, TINY_DATA } from './data.ts';
import { connect, DEFAULT_PREFIX, postgresCopy, type PostgresTarget } from './postgres-data.ts';
import { writeJson } from './report/json.ts';
import { writeMarkdown } from './report/markdown.ts';
import { writeCharts } from './report/svg.ts';
import { formatTable } from './report/table.ts';
import type { BenchRun, SuiteResult } from './results.ts';
import { exportSuite } from './suites/export.ts';
import { httpSuite } from './suites/http.ts';
import { journeyPagingSuite } from './suites/journey-paging.ts';
import { peerSuite } from './suites/peer.ts';
import { peoplePagingSuite } from './suites/people-paging.ts';
import { pgExportSuite } from './suites/pg-export.ts';
import { processesSuite } from './suites/processes.ts';
import { readsDuringExportsSuite } from './suites/reads-during-exports.ts';
import { statsCompaniesSuite } from './suites/stats-companies.ts';
import { webhooksSuite } from './suites/webhooks.ts';
import type { SuiteOptions } from './suites/suite.ts';

/** Every suite, in the order a run takes them. */
export const SUITES = ['journey-paging', 'people-paging', 'http', 'peer', 'export', 'reads-during-exports', 'webhooks', 'stats-companies', 'processes'] as const;
type SuiteName = (typeof SUITES)[number];
type Runner = (options: SuiteOptions) => Promise<SuiteResult>;

/** Each suite's entry point on SQLite: all take the same options. */
const RUNNERS: Record<SuiteName, Runner> = {
  'journey-paging': journeyPagingSuite,
  'people-paging': peoplePagingSuite,
  http: httpSuite,
  peer: peerSuite,
  export: exportSuite,
  'reads-during-exports': readsDuringExportsSuite,
  webhooks: webhooksSuite,
  'stats-companies': statsCompaniesSuite,
  processes: processesSuite,
};

/** The suites that run on PostgreSQL (`--postgres`), and their entry points there. */
const POSTGRES_RUNNERS: Partial<Record<SuiteName, Runner>> = {
  'journey-paging': journeyPagingSuite,
  'people-paging': peoplePagingSuite,
  export: pgExportSuite,
  processes: processesSuite,
};

/**
 * The suites a run takes when `--suites` is not given. On SQLite, all but `processes` (it starts
 * API processes of the built bin; ask for it by name); on PostgreSQL, every suite that runs there.
 */
export const DEFAULT_SUITES: Record<'sqlite' | 'postgres', readonly SuiteName[]> = {
  sqlite: SUITES.filter((s) => s !== 'processes'),
  postgres: SUITES.filter((s) => s in POSTGRES_RUNNERS),
};

/** What a run does; sizes default to the tiny or the default data set. */
export interface RunOptions {
  tiny: boolean;
  seed: number;
  people?: number;
  events?: number;
  journeys?: number[];
  suites?: readonly string[];
  /** Directory for latest.json, latest.md and the charts. */
  out: string;
  /** Where benchmark databases are cached. Default bench/.cache. */
  cacheDir?: string;
  /** Rethrow a suite's failure instead of recording it and going on (tests). */
  strict?: boolean;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
  /**
   * A PostgreSQL server (`postgres://user@host:port/db`; the role needs CREATEDB): the paging,
   * export and processes suites then run there, on copies of the SQLite data kept as databases
   * named `<postgresPrefix>…` and reused by later runs.
   */
  postgres?: string;
  /** Start of the names of the databases the run creates. Default `vi_bench_`. */
  postgresPrefix?: string;
}

/** What a run produced. */
export interface RunOutcome {
  run: BenchRun;
  files: string[];
  /** Suites that threw, with the message (only when not strict). */
  failed: string[];
}

/** Runs the benchmark and writes its reports. */
export async function runBench(options: RunOptions): Promise<RunOutcome> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sizes = options.tiny ? TINY_DATA : DEFAULT_DATA;
  const people = options.people ?? sizes.people;
  const events = options.events ?? sizes.events;
  const journeys = options.journeys ?? sizes.journeys;
  const backend = options.postgres === undefined ? 'sqlite' : 'postgres';
  const suites = (options.suites ?? DEFAULT_SUITES[backend]) as SuiteName[];
  const unknown = suites.filter((s) => !SUITES.includes(s));
  if (unknown.length > 0) throw new Error(`unknown suite ${unknown.join(', ')}; known: ${SUITES.join(', ')}`);
  const runners = backend === 'postgres' ? POSTGRES_RUNNERS : RUNNERS;
  const sqliteOnly = suites.filter((s) => runners[s] === undefined);
  if (sqliteOnly.length > 0) throw new Error(`suite ${sqliteOnly.join(', ')} runs on SQLite only; on PostgreSQL: ${DEFAULT_SUITES.postgres.join(', ')}`);
  const postgres: PostgresTarget | undefined = options.postgres === undefined ? undefined : { url: options.postgres, prefix: options.postgresPrefix ?? DEFAULT_PREFIX };
  // A server that does not answer stops the run before any data is built.
  if (postgres) await (await connect(postgres.url)).end();
  const run: BenchRun = {
    startedAt: new Date().toISOString(),
    machine: { cpus: availableParallelism(), memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}` },
    config: { tiny: options.tiny, seed: options.seed, people, events, journeys: journeys.join(','), suites: suites.join(','), backend },
    suites: [],
  };

  log(`bench data: seed ${options.seed}, ${people.toLocaleString('en')} people, ${events.toLocaleString('en')} events, journeys ${journeys.join(', ')}`);
  const { seed, cacheDir, tiny } = options;
  const data = await benchDatabase({ seed, people, events, journeys, cacheDir });
  if (postgres && suites.some((s) => s === 'journey-paging' || s === 'people-paging')) {
    const started = performance.now();
    data.postgres = await postgresCopy(postgres, data.path);
    log(`PostgreSQL bench data ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${new URL(data.postgres).pathname.slice(1)}, reused when it exists)`);
  }
  const failed: string[] = [];
  for (const name of SUITES.filter((s) => suites.includes(s))) {
    const started = performance.now();
    log(`suite ${name}…`);
    try {
      run.suites.push(await runners[name]!({ data, seed, cacheDir, tiny, postgres, onCase: caseLogger(name) }));
    } catch (error) {
      if (options.strict) throw error;
      const message = error instanceof Error ? error.message : String(error);
      failed.push(`${name}: ${message}`);
      run.suites.push({ suite: name, title: name, cases: [], targets: [], skipped: [`failed: ${message}`] });
    }
    log(`suite ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  mkdirSync(options.out, { recursive: true });
  const charts = writeCharts(run, options.out);
  const files = [writeJson(run, options.out), writeMarkdown(run, options.out, charts), ...charts.map((c) => join(options.out, c))];
  return { run, files, failed };
}

/** On a terminal, the case being measured on one rewritten line; elsewhere nothing (CI logs stay short). */
function caseLogger(suite: string): (name: string) => void {
  if (process.env.CI || !process.stderr.isTTY) return () => {};
  return (name) => process.stderr.write(`\r\x1b[K  ${suite}: ${name.slice(0, (process.stderr.columns ?? 100) - suite.length - 6)}`);
}

/** A command-line flag's positive whole number (`1_000_000` allowed); anything else stops the run. */
export function positiveInt(flag: string, text: string): number {
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer, got ${text}`);
  return n;
}

/** Where the committed results live: only `--save` writes there. */
export const SAVED_RESULTS = 'bench/results';

/**
 * The folder a command-line run writes its reports to: `--out` when given, bench/results with
 * `--save`, else a new temporary folder, so trying the benchmark (or CI's `--tiny`) never
 * overwrites the committed results.
 */
export function resultsDir(flags: { save?: boolean; out?: string }): string {
  if (flags.out !== undefined) return resolve(flags.out);
  if (flags.save) return resolve(SAVED_RESULTS);
  return mkdtempSync(join(tmpdir(), 'vi-bench-'));
}

/** The command line: flags → options, then the table on stdout and the files written. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tiny: { type: 'boolean', default: false },
      seed: { type: 'string', default: '42' },
      people: { type: 'string' },
      events: { type: 'string' },
      journeys: { type: 'string' },
      suites: { type: 'string' },
      out: { type: 'string' },
      save: { type: 'boolean', default: false },
      cache: { type: 'string' },
      postgres: { type: 'string' },
    },
  });
  const int = (name: string, text: string | undefined) => (text === undefined ? undefined : positiveInt(name, text));
  const { run, files, failed } = await runBench({
    tiny: values.tiny!,
    seed: int('seed', values.seed)!,
    people: int('people', values.people),
    events: int('events', values.events),
    journeys: values.journeys?.split(',').map((j) => int('journeys', j.trim())!),
    suites: values.suites?.split(',').map((s) => s.trim()).filter(Boolean),
    out: resultsDir(values),
    cacheDir: values.cache === undefined ? undefined : resolve(values.cache),
    postgres: values.postgres,
  });
  if (process.stderr.isTTY && !process.env.CI) process.stderr.write('\r\x1b[K');
  const kept = values.out !== undefined || values.save ? '' : ' (a temporary folder: pass --save to replace bench/results)';
  process.stdout.write(`\n${formatTable(run)}\n\nWrote ${files.join(', ')}${kept}\n`);
  if (failed.length > 0) {
    process.stderr.write(`\nFailed suites:\n${failed.map((f) => `  ${f}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) runCommandLine('bench', main);
