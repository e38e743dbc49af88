/**
 * The export suite on PostgreSQL (`npm run bench -- --postgres URL`): rows per second and peak
 * memory growth of our export against the naive `pg` floor (a cursor → fast-csv) and the server's
 * own `COPY … TO STDOUT WITH CSV`, and the durable floor (that COPY stored in the database as ours
 * stores its file), each run in a fresh process (pg-export-runs.ts), alternating.
 * The people are export.ts's, copied from its SQLite databases (bench/postgres-data.ts).
 *
 * Until exports run on PostgreSQL, our side fails; the suite then says so in one line and still
 * measures both floors, so the comparison is ready the day they do.
 */
import { exportDatabase } from '../data.ts';
import { postgresCopy } from '../postgres-data.ts';
import { target, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { fold, memoryTarget, type ExportSuiteOptions } from './export.ts';
import type { ExportRun } from './export-runs.ts';
import { DURABLE_CHUNK_CHARS, pgInChild, type PgExportSide } from './pg-export-runs.ts';
import type { SuiteOptions } from './suite.ts';

const TINY_EXPORT_PEOPLE = [5_000];
const DEFAULT_EXPORT_PEOPLE = [100_000, 1_000_000];

/** Why ours takes longer than COPY (core/store/export-whole-file.ts). */
const WHERE_THE_TIME_GOES =
  'COPY streams one query and keeps nothing. Ours is one statement too, in one transaction with the job\'s record: the server selects the people, numbers them in file order, joins each line from the stored CSV pieces and inserts them 400 lines a chunk (LZ4). ' +
  'What it costs beyond COPY is storing the file: the numbering and the aggregation into chunks, their compression and WAL. No row passes through our process.';

/**
 * What the durable floor says of the bound: COPY's file stored as ours stores it, with nothing
 * else; below 0.4× COPY, no export keeping its file in the database that way reaches it here.
 */
export function pgDurableNote(durableToCopy: number, oursToDurable: number): string {
  const verdict =
    durableToCopy < 0.4
      ? 'storing the file that way, with nothing else, already misses 0.4× on this machine: out of reach for an export that keeps its file in the database as ours does.'
      : 'numbering the rows and aggregating them into chunks in SQL take the rest.';
  return `The durable floor (COPY's CSV inserted back into the database in chunks of ~${DURABLE_CHUNK_CHARS / 1000} K characters, one commit each, with nothing else) reaches ${durableToCopy.toFixed(2)}× COPY, ours ${oursToDurable.toFixed(2)}× it: ${verdict} `;
}

/** What the suite says when our export fails on PostgreSQL. */
export const NOT_ON_POSTGRES = 'exports do not run on this backend yet';

export async function pgExportSuite(options: ExportSuiteOptions & Pick<SuiteOptions, 'postgres'>): Promise<SuiteResult> {
  const { postgres } = options;
  if (!postgres) throw new Error('the PostgreSQL export suite needs --postgres URL');
  const sizes = options.exportPeople ?? (options.tiny ? TINY_EXPORT_PEOPLE : DEFAULT_EXPORT_PEOPLE);
  const cases: CaseResult[] = [];
  const targets: TargetResult[] = [];
  const skipped: string[] = [];
  let oursFails: string | undefined;

  for (const people of sizes) {
    const file = await exportDatabase({ seed: options.seed, people, cacheDir: options.cacheDir });
    const url = await postgresCopy(postgres, file);
    // Three runs a side at every size, as on SQLite: the memory target is the worst of three.
    const count = options.runs ?? (options.tiny ? 1 : 3);
    const runs: Record<PgExportSide, ExportRun[]> = { ours: [], floor: [], copy: [], durable: [] };
    for (let i = 0; i < count; i++) {
      if (oursFails === undefined) {
        try {
          runs.ours.push(pgInChild('ours', url));
        } catch (error) {
          oursFails = error instanceof Error ? error.message : String(error);
          skipped.push(`ours not measured: ${NOT_ON_POSTGRES} (POST /v1/exports → complete failed: ${oursFails.slice(0, 300)})`);
        }
      }
      runs.floor.push(pgInChild('floor', url));
      runs.copy.push(pgInChild('copy', url));
      runs.durable.push(pgInChild('durable', url));
    }
    const size = people.toLocaleString('en');
    const floor = fold(`export of ${size} people on PostgreSQL (naive floor: pg cursor → fast-csv)`, 'floor', runs.floor, people);
    const copy = fold(`export of ${size} people on PostgreSQL (COPY … TO STDOUT WITH CSV)`, 'peer', runs.copy, people);
    const stored = fold(`export of ${size} people on PostgreSQL (durable floor: COPY → chunks in the database)`, 'floor', runs.durable, people);
    if (runs.ours.length === 0) {
      cases.push(floor, copy, stored);
      continue;
    }
    const mine = fold(`export of ${size} people on PostgreSQL (ours: POST → complete)`, 'ours', runs.ours, people);
    cases.push(mine, floor, copy, stored);
    targets.push(
      target(`export of ${size} people on PostgreSQL: ≥ 0.4× COPY's rows/s`, mine.perSecond!, copy.perSecond!, 0.4, 'at-least', `${mine.perSecond!.toFixed(0)} vs ${copy.perSecond!.toFixed(0)} rows/s. ${pgDurableNote(stored.perSecond! / copy.perSecond!, mine.perSecond! / stored.perSecond!)}${WHERE_THE_TIME_GOES}`),
    );
    if (people === Math.max(...sizes)) targets.push(memoryTarget(`export of ${size} people on PostgreSQL`, mine.peakMb!));
  }
  return {
    suite: 'export',
    title: 'Export on PostgreSQL: people to CSV, ours against a pg cursor → fast-csv and COPY … TO STDOUT',
    cases,
    targets,
    ...(skipped.length ? { skipped } : {}),
  };
}
