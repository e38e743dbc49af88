/**
 * `npm run bench:export`: the export suite of `npm run bench` (bench/suites/export.ts) on its own,
 * at the size and number of runs asked for: rows per second and peak memory growth of our export
 * against the naive floor (better-sqlite3 `iterate()` → fast-csv) and, when installed, the
 * `sqlite3` shell, over the same people.
 *
 *   npm run bench:export -- --people 1000000 --seed 42 --runs 3
 *
 * The database is built once per seed and size under bench/.cache (or --cache) and reused.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatSuite } from './report/table.ts';
import { positiveInt } from './run.ts';
import { EXPORT_SEED } from './suites/export-runs.ts';
import { exportSuite } from './suites/export.ts';

const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: String(EXPORT_SEED) },
    runs: { type: 'string', default: '3' },
    cache: { type: 'string' },
  },
});
const suite = await exportSuite({
  tiny: false,
  seed: positiveInt('seed', values.seed!),
  exportPeople: [positiveInt('people', values.people!)],
  runs: positiveInt('runs', values.runs!),
  cacheDir: values.cache === undefined ? undefined : resolve(values.cache),
});
process.stdout.write(`\n${formatSuite(suite)}\n`);
