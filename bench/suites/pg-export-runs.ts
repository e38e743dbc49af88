/**
 * One measured export on PostgreSQL, in a fresh process as export-runs.ts does on SQLite, over the
 * same rows (export-runs.ts's FLOOR_QUERY, which both backends run alike):
 *
 *   ours   POST /v1/exports → complete, through `createApi({ database: URL })`;
 *   floor  what naive code does with a plain `pg` client: a cursor fetched 1,000 rows at a time,
 *          each row an object, piped into fast-csv, written to a file;
 *   copy   `COPY (…) TO STDOUT WITH (FORMAT csv, HEADER)` read through pg-copy-streams into a
 *          file: the server writes the CSV itself, as the sqlite3 shell does on SQLite.
 *
 *   node --expose-gc --import tsx bench/suites/pg-export-runs.ts --run ours|floor|copy --db URL
 *
 * prints the run as one JSON line.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { format } from 'fast-csv';
import { sql } from 'kysely';
import { to as copyTo } from 'pg-copy-streams';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { BENCH_ACCOUNT, BENCH_ANCHOR } from '../data.ts';
import { EXPORT_KEY, FLOOR_QUERY, measure, measuredInChild, runsAsScript, whileProcessing, type ExportRun } from './export-runs.ts';
import { numberClient } from './pg-journey-floor.ts';

/** The sides measured on PostgreSQL. */
export type PgExportSide = 'ours' | 'floor' | 'copy';

/** Rows a naive cursor fetches per round trip. */
const FETCH = 1_000;

/** A temporary CSV file for one run, removed after. */
function scratchFile(side: string): string {
  return join(tmpdir(), `vi-pg-${side}-${process.pid}.csv`);
}

/** Our export, POST → complete, with the same exclusions as on SQLite (opening, the key, the job's cleanup after it is complete). */
async function ours(url: string): Promise<ExportRun> {
  const api = await createApi({ database: url, clock: new ManualClock(BENCH_ANCHOR) });
  const watch = await numberClient(url);
  try {
    if (!(await api.admin.describeKey(EXPORT_KEY))) await api.admin.issueAccountKey(BENCH_ACCOUNT, { label: 'export bench', value: EXPORT_KEY });
    const headers = { 'x-api-key': EXPORT_KEY };
    const status = async (jobId: string) => (await watch.query<{ status: string }>('select status from export_jobs where id = $1', [jobId])).rows[0]?.status;
    let jobId = '';
    const run = await measure(async () => {
      const res = await api.fetch(new Request('http://bench/v1/exports', { method: 'POST', headers }));
      const started = (await res.json()) as { jobId?: string; error?: { message: string } };
      if (res.status !== 202 || !started.jobId) throw new Error(`POST /v1/exports answered ${res.status}: ${JSON.stringify(started)}`);
      jobId = started.jobId;
      await whileProcessing(status, jobId);
      return 0;
    });
    await api.exportsIdle();
    const job = await (await api.fetch(new Request(`http://bench/v1/exports/${jobId}`, { headers }))).json();
    if (job.status !== 'complete') throw new Error(`the export ended ${job.status}: ${job.error ?? JSON.stringify(job)}`);
    return { ...run, rows: job.rowCount as number };
  } finally {
    await watch.end();
    await api.db.deleteFrom('export_chunks').execute().catch(() => undefined);
    await api.db.deleteFrom('export_members').execute().catch(() => undefined);
    await api.db.deleteFrom('export_jobs').execute().catch(() => undefined);
    // What autovacuum would do (these machines' PostgreSQL runs with it off): each run would
    // otherwise insert its members and chunks among every earlier run's dead rows.
    await sql`vacuum export_members, export_chunks`.execute(api.db).catch(() => undefined);
    await api.close();
  }
}

/** The naive floor: a cursor over the rows, objects through fast-csv into a file. */
async function floor(url: string): Promise<ExportRun> {
  const client = await numberClient(url);
  const out = scratchFile('floor');
  try {
    return await measure(async () => {
      const file = createWriteStream(out);
      const csv = format({ headers: true, rowDelimiter: '\r\n', includeEndRowDelimiter: true });
      csv.pipe(file);
      let rows = 0;
      await client.query('begin');
      await client.query(`declare people_csv no scroll cursor for ${FLOOR_QUERY}`);
      for (;;) {
        const batch = await client.query(`fetch ${FETCH} from people_csv`);
        for (const row of batch.rows) {
          rows++;
          if (!csv.write(row)) await new Promise((resolve) => csv.once('drain', resolve));
        }
        if (batch.rows.length < FETCH) break;
      }
      await client.query('commit');
      csv.end();
      await finished(file);
      return rows;
    });
  } finally {
    await client.end();
    rmSync(out, { force: true });
  }
}

/** The server's own CSV: COPY … TO STDOUT streamed into a file; rows counted from the server's answer. */
async function copy(url: string): Promise<ExportRun> {
  const client = await numberClient(url);
  const out = scratchFile('copy');
  try {
    return await measure(async () => {
      const stream = client.query(copyTo(`copy (${FLOOR_QUERY}) to stdout with (format csv, header)`));
      await pipeline(stream, createWriteStream(out));
      return stream.rowCount;
    });
  } finally {
    await client.end();
    rmSync(out, { force: true });
  }
}

const SIDES: Record<PgExportSide, (url: string) => Promise<ExportRun>> = { ours, floor, copy };

/** Measures one side on PostgreSQL in a fresh process. */
export function pgInChild(side: PgExportSide, url: string): ExportRun {
  return measuredInChild(import.meta.filename, side, url);
}

if (runsAsScript(import.meta.filename)) {
  const { values } = parseArgs({ options: { run: { type: 'string' }, db: { type: 'string' } } });
  const side = values.run as PgExportSide;
  if (!(side in SIDES) || !values.db) throw new Error('usage: pg-export-runs.ts --run ours|floor|copy --db URL');
  console.log(JSON.stringify(await SIDES[side](values.db)));
}
