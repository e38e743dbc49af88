/**
 * `npm run bench:export`: the export suite of `npm run bench` (bench/suites/export.ts) on its own,
 * at the size and number of runs asked for: rows per second and peak memory growth of our export
 * against the naive floor (better-sqlite3 `iterate()` → fast-csv), the durable floor (the file
 * stored as ours stores it, nothing else) and, when installed, the `sqlite3` shell, over the same
 * people.
 *
 *   npm run bench:export -- --people 1000000 --seed 42 --runs 3
 *   npm run bench:export -- --people 100000 --postgres postgres://postgres@127.0.0.1:5432/postgres
 *
 * With --postgres, the PostgreSQL export suite (bench/suites/pg-export.ts) runs instead, on a
 * copy of the same people kept on that server (bench/postgres-data.ts).
 * The database is built once per seed and size under bench/.cache (or --cache) and reused.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCommandLine } from './command-line.ts';
import { formatSuite } from './report/table.ts';
import { positiveInt } from './run.ts';
import { DEFAULT_PREFIX } from './postgres-data.ts';
import { EXPORT_SEED } from './suites/export-runs.ts';
import { exportSuite } from './suites/export.ts';
import { pgExportSuite } from './suites/pg-export.ts';

/** The command line: flags → the suite, then its table on stdout. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      people: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: String(EXPORT_SEED) },
      runs: { type: 'string', default: '3' },
      cache: { type: 'string' },
      postgres: { type: 'string' },
    },
  });
  const postgres = values.postgres === undefined ? undefined : { url: values.postgres, prefix: DEFAULT_PREFIX };
  const suite = await (postgres ? pgExportSuite : exportSuite)({
    postgres,
    tiny: false,
    seed: positiveInt('seed', values.seed!),
    exportPeople: [positiveInt('people', values.people!)],
    runs: positiveInt('runs', values.runs!),
    cacheDir: values.cache === undefined ? undefined : resolve(values.cache),
  });
  process.stdout.write(`\n${formatSuite(suite)}\n`);
}

runCommandLine('bench:export', main);
