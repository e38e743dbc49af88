/**
 * The export suite on PostgreSQL (`npm run bench -- --postgres URL`): rows per second and peak
 * memory growth of our export against the naive `pg` floor (a cursor → fast-csv) and the server's
 * own `COPY … TO STDOUT WITH CSV`, each run in a fresh process (pg-export-runs.ts), alternating.
 * The people are export.ts's, copied from its SQLite databases (bench/postgres-data.ts).
 */
import { exportDatabase } from '../data.ts';
import { postgresCopy } from '../postgres-data.ts';
import { QUIET } from '../../scripts/progress.ts';
import type { CaseResult, SuiteResult } from '../results.ts';
import { EXPORT_PEOPLE, exportTargets, fold } from './export.ts';
import type { ExportRun } from './export-runs.ts';
import { pgInChild, type PgExportSide } from './pg-export-runs.ts';
import type { SuiteOptions } from './suite.ts';

export async function pgExportSuite(options: SuiteOptions): Promise<SuiteResult> {
  const { postgres } = options;
  if (!postgres) throw new Error('the PostgreSQL export suite needs --postgres URL');
  const sizes = options.tiny ? EXPORT_PEOPLE.tiny : EXPORT_PEOPLE.full;
  const count = options.tiny ? 1 : 3;
  const progress = options.progress ?? QUIET;
  const cases: CaseResult[] = [];
  progress.start(sizes.length * count);

  for (const people of sizes) {
    const url = await postgresCopy(postgres, await exportDatabase({ seed: options.seed, people, cacheDir: options.cacheDir }));
    const runs: Record<PgExportSide, ExportRun[]> = { ours: [], floor: [], copy: [] };
    const size = people.toLocaleString('en');
    for (let i = 0; i < count; i++) {
      runs.ours.push(pgInChild('ours', url));
      runs.floor.push(pgInChild('floor', url));
      runs.copy.push(pgInChild('copy', url));
      progress.step(`${size} people`);
    }
    cases.push(
      fold(`export of ${size} people on PostgreSQL (ours: POST → complete)`, 'ours', runs.ours, people),
      fold(`export of ${size} people on PostgreSQL (naive floor: pg cursor → fast-csv)`, 'floor', runs.floor, people),
      fold(`export of ${size} people on PostgreSQL (COPY … TO STDOUT WITH CSV)`, 'peer', runs.copy, people),
    );
  }
  return {
    suite: 'export',
    title: 'Export on PostgreSQL: people to CSV, ours against a pg cursor → fast-csv and COPY … TO STDOUT',
    cases,
    targets: exportTargets(cases, 'peer', 'COPY'),
  };
}
