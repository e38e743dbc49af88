/**
 * `npm run bench`: builds (or reuses) the benchmark data, runs the suites in order, prints the
 * table and writes latest.json, latest.md and the SVG charts. `npm run bench -- --help` lists the flags.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { wholeNumber } from '../scripts/commands/options.ts';
import { benchDatabase, DEFAULT_DATA, TINY_DATA, type BenchData } from './data.ts';
import { connect, DEFAULT_PREFIX, postgresCopy, type PostgresTarget } from './postgres-data.ts';
import { terminalBar } from '../scripts/progress.ts';
import { writeJson } from './report/json.ts';
import { writeMarkdown, writeReadme } from './report/markdown.ts';
import { writeCharts } from './report/charts.ts';
import { formatTable } from './report/table.ts';
import type { BenchRun, SuiteResult } from './results.ts';
import { exportSuite } from './suites/export.ts';
import { httpSuite } from './suites/http.ts';
import { journeyPagingSuite } from './suites/journey-paging.ts';
import { peerSuite } from './suites/peer.ts';
import { peoplePagingSuite } from './suites/people-paging.ts';
import { pgScalingSuite, type ScalingOptions } from './suites/pg-scaling.ts';
import { pgExportSuite } from './suites/pg-export.ts';
import { readsDuringExportsSuite } from './suites/reads-during-exports.ts';
import { statsCompaniesSuite } from './suites/stats-companies.ts';
import type { SuiteOptions } from './suites/suite.ts';

/** Every suite, in the order a run takes them. */
export const SUITES = ['journey-paging', 'people-paging', 'stats-companies', 'http', 'peer', 'export', 'reads-during-exports', 'pg-scaling'] as const;
type SuiteName = (typeof SUITES)[number];
type Runner = (options: SuiteOptions) => Promise<SuiteResult>;

/**
 * Suites that run only when `--suites` names them, whatever the backend: they make servers of
 * their own (throwaway clusters, as root) and seed them, so they need neither the bench data nor `--postgres`.
 */
const ON_REQUEST = { 'pg-scaling': pgScalingSuite } satisfies Partial<Record<SuiteName, (options: ScalingOptions) => Promise<SuiteResult>>>;
const isOnRequest = (name: SuiteName): name is keyof typeof ON_REQUEST => name in ON_REQUEST;

/** Each suite's entry point on SQLite: all take the same options. */
const RUNNERS: Partial<Record<SuiteName, Runner>> = {
  'journey-paging': journeyPagingSuite,
  'people-paging': peoplePagingSuite,
  'stats-companies': statsCompaniesSuite,
  http: httpSuite,
  peer: peerSuite,
  export: exportSuite,
  'reads-during-exports': readsDuringExportsSuite,
};

/** The suites that run on PostgreSQL (`--postgres`), and their entry points there. */
const POSTGRES_RUNNERS: Partial<Record<SuiteName, Runner>> = {
  'journey-paging': journeyPagingSuite,
  'people-paging': peoplePagingSuite,
  export: pgExportSuite,
};

/** The suites a run takes when `--suites` is not given: all of them on the backend but those run on request. */
export const DEFAULT_SUITES: Record<'sqlite' | 'postgres', readonly SuiteName[]> = {
  sqlite: SUITES.filter((s) => s in RUNNERS),
  postgres: SUITES.filter((s) => s in POSTGRES_RUNNERS),
};

/** What a run does; sizes default to the tiny or the default data set. */
export interface RunOptions {
  /** A smoke run: tiny data, every code path once, no target judged. */
  tiny: boolean;
  seed: number;
  people?: number;
  events?: number;
  journeys?: number[];
  suites?: readonly string[];
  /** Directory for latest.json, latest.md and the charts. */
  out: string;
  /** Also write the figures into this README's marked section (`--save`). */
  readme?: string;
  /** Where benchmark databases are cached. Default bench/.cache. */
  cacheDir?: string;
  /** Rethrow a suite's failure instead of recording it and going on (tests). */
  strict?: boolean;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
  /**
   * A PostgreSQL server (`postgres://user@host:port/db`; the role needs CREATEDB): the paging and
   * export suites then run there, on copies of the SQLite data kept as databases named
   * `<postgresPrefix>…` and reused by later runs.
   */
  postgres?: string;
  /** Start of the names of the databases the run creates. Default `vi_bench_`. */
  postgresPrefix?: string;
}

/** Suites a run cannot take, found before any data is built: one line and exit 2 on the command line. */
export class UsageError extends Error {}

/** What a run produced. */
export interface RunOutcome {
  run: BenchRun;
  files: string[];
  /** Suites that threw, with the message (only when not strict). */
  failed: string[];
}

/** The suites a run takes, or a UsageError naming one it cannot. */
function suitesOf(options: Pick<RunOptions, 'suites' | 'postgres'>): SuiteName[] {
  const backend = options.postgres === undefined ? 'sqlite' : 'postgres';
  const suites = (options.suites ?? DEFAULT_SUITES[backend]) as SuiteName[];
  const unknown = suites.filter((s) => !SUITES.includes(s));
  if (unknown.length > 0) throw new UsageError(`unknown suite ${unknown.join(', ')}; known: ${SUITES.join(', ')}`);
  const sqliteOnly = suites.filter((s) => !isOnRequest(s) && (backend === 'postgres' ? POSTGRES_RUNNERS : RUNNERS)[s] === undefined);
  if (sqliteOnly.length > 0) throw new UsageError(`suite ${sqliteOnly.join(', ')} runs on SQLite only; on PostgreSQL: ${DEFAULT_SUITES.postgres.join(', ')}`);
  return suites;
}

/** Runs the benchmark and writes its reports. */
export async function runBench(options: RunOptions): Promise<RunOutcome> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sizes = options.tiny ? TINY_DATA : DEFAULT_DATA;
  const people = options.people ?? sizes.people;
  const events = options.events ?? sizes.events;
  const journeys = options.journeys ?? sizes.journeys;
  const backend = options.postgres === undefined ? 'sqlite' : 'postgres';
  const suites = suitesOf(options);
  const runners = backend === 'postgres' ? POSTGRES_RUNNERS : RUNNERS;
  const postgres: PostgresTarget | undefined = options.postgres === undefined ? undefined : { url: options.postgres, prefix: options.postgresPrefix ?? DEFAULT_PREFIX };
  // A server that does not answer stops the run before any data is built.
  if (postgres) await (await connect(postgres.url)).end();
  const run: BenchRun = {
    startedAt: new Date().toISOString(),
    machine: { cpus: availableParallelism(), memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}` },
    // A run of on-request suites alone ran on their own PostgreSQL servers, whatever --postgres says.
    config: { tiny: options.tiny, seed: options.seed, people, events, journeys: journeys.join(','), suites: suites.join(','), backend: suites.every(isOnRequest) ? 'postgres' : backend },
    suites: [],
  };

  const { seed, cacheDir, tiny } = options;
  // Built once, before the first suite that reads it.
  let data: BenchData | undefined;
  const benchData = async (): Promise<BenchData> => {
    if (data) return data;
    log(`bench data: seed ${options.seed}, ${people.toLocaleString('en')} people, ${events.toLocaleString('en')} events, journeys ${journeys.join(', ')}`);
    data = await benchDatabase({ seed, people, events, journeys, cacheDir });
    if (postgres && suites.some((s) => s === 'journey-paging' || s === 'people-paging')) data.postgres = await postgresCopy(postgres, data.path);
    return data;
  };
  const failed: string[] = [];
  for (const name of SUITES.filter((s) => suites.includes(s))) {
    const started = performance.now();
    const progress = terminalBar(name);
    try {
      const result = isOnRequest(name) ? await ON_REQUEST[name]({ seed, tiny, people, progress }) : await runners[name]!({ data: await benchData(), seed, cacheDir, tiny, postgres, progress });
      // A smoke run's figures come from a handful of samples: judging them would mean nothing.
      run.suites.push(tiny ? { ...result, targets: [] } : result);
    } catch (error) {
      if (options.strict) throw error;
      const message = error instanceof Error ? error.message : String(error);
      failed.push(`${name}: ${message}`);
      run.suites.push({ suite: name, title: name, cases: [], targets: [], skipped: [`failed: ${message}`] });
    } finally {
      progress.stop();
    }
    log(`suite ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  mkdirSync(options.out, { recursive: true });
  const charts = await writeCharts(run, options.out);
  const files = [writeJson(run, options.out), writeMarkdown(run, options.out, charts), ...charts.map((c) => join(options.out, c))];
  const { readme } = options;
  if (readme) files.push(writeReadme(run, readme, charts.map((c) => relative(join(readme, '..'), join(options.out, c)))));
  return { run, files, failed };
}

/** Where the committed results live: only `--save` writes there (and into bench/README.md). */
export const SAVED_RESULTS = 'bench/results';
export const SAVED_README = 'bench/README.md';

/**
 * The folder a command-line run writes its reports to: `--out` when given, bench/results with
 * `--save`, else a new temporary folder, so trying the benchmark never overwrites the committed results.
 */
export function resultsDir(flags: { save?: boolean; out?: string }): string {
  if (flags.out !== undefined) return resolve(flags.out);
  if (flags.save) return resolve(SAVED_RESULTS);
  return mkdtempSync(join(tmpdir(), 'vi-bench-'));
}

/** A comma-separated list of whole numbers ≥ 1. */
const wholeNumbers = (text: string) => text.split(',').map((n) => wholeNumber(1, Number.MAX_SAFE_INTEGER)(n.trim()));
const whole = wholeNumber(1, Number.MAX_SAFE_INTEGER);

/** The `bench` command line, parsed as the project's CLI parses its own. */
export function buildCommand(): Command {
  return new Command('bench')
    .description(
      `Runs the benchmark suites and reports their figures and targets.\nSuites: ${DEFAULT_SUITES.sqlite.join(', ')}; on PostgreSQL: ${DEFAULT_SUITES.postgres.join(', ')}.\nOnly when named in --suites: ${Object.keys(ON_REQUEST).join(', ')} (throwaway PostgreSQL clusters and PgBouncer; root).\nA full run takes about an hour; --tiny runs every suite once on tiny data in about a minute.`,
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false)
    .option('--tiny', 'a smoke run: tiny data, every suite once, no target judged')
    .option('--seed <n>', 'seed of the generated data', whole, 42)
    .option('--people <n>', 'people in the paging data', whole)
    .option('--events <n>', 'events in the paging data', whole)
    .option('--journeys <sizes>', 'events of each exact-size journey, comma-separated', wholeNumbers)
    .option('--suites <names>', `suites to run, comma-separated (default: all but ${Object.keys(ON_REQUEST).join(', ')})`, (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean))
    .option('--out <dir>', 'where to write latest.json, latest.md and the charts (default: a new temporary folder)')
    .option('--save', `write into ${SAVED_RESULTS} and the table of ${SAVED_README}`)
    .option('--cache <dir>', 'where built databases are kept (default: bench/.cache)')
    .option('--postgres <url>', 'run the paging and export suites on this PostgreSQL server (the role needs CREATEDB)');
}

interface Flags {
  tiny?: boolean;
  seed: number;
  people?: number;
  events?: number;
  journeys?: number[];
  suites?: string[];
  out?: string;
  save?: boolean;
  cache?: string;
  postgres?: string;
}

/** The command line: flags → a run, then the table on stdout. A mistake is commander's one line and exit 2. */
export async function main(argv: string[]): Promise<number> {
  try {
    const command = buildCommand();
    await command.parseAsync(argv, { from: 'user' });
    const flags = command.opts<Flags>();
    if (flags.save && flags.tiny) command.error('error: a smoke run (--tiny) is never saved: its figures mean nothing', { exitCode: 2 });
    // Named suites are checked before a folder is made for the reports.
    suitesOf(flags);
    const { run, files, failed } = await runBench({
      tiny: flags.tiny === true,
      seed: flags.seed,
      people: flags.people,
      events: flags.events,
      journeys: flags.journeys,
      suites: flags.suites,
      out: resultsDir(flags),
      readme: flags.save ? resolve(SAVED_README) : undefined,
      cacheDir: flags.cache === undefined ? undefined : resolve(flags.cache),
      postgres: flags.postgres,
    });
    const kept = flags.out !== undefined || flags.save ? '' : ' (a temporary folder: --save writes bench/results and bench/README.md)';
    process.stdout.write(`\n${formatTable(run)}\n\nWrote ${files.join(', ')}${kept}\n`);
    if (failed.length === 0) return 0;
    process.stderr.write(`\nFailed suites:\n${failed.map((f) => `  ${f}`).join('\n')}\n`);
    return 1;
  } catch (error) {
    // Commander printed its own message (or the help) already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) process.exitCode = await main(process.argv.slice(2));
