/**
 * One measured export on PostgreSQL, in a fresh process as export-runs.ts does on SQLite, over the
 * same rows (export-runs.ts's FLOOR_QUERY, which both backends run alike):
 *
 *   ours   POST /v1/exports → complete, through `createApi({ database: URL })`;
 *   floor  what naive code does with a plain `pg` client: a cursor fetched 1,000 rows at a time,
 *          each row an object, piped into fast-csv, written to a file;
 *   copy   `COPY (…) TO STDOUT WITH (FORMAT csv, HEADER)` read through pg-copy-streams into a
 *          file: the server writes the CSV itself, as the sqlite3 shell does on SQLite;
 *   durable the same COPY stored back in the database as ours stores its file, with nothing else.
 *
 *   node --expose-gc --import tsx bench/suites/pg-export-runs.ts --run ours|floor|copy|durable --db URL
 *
 * prints the run as one JSON line.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { parseArgs } from 'node:util';
import { format } from 'fast-csv';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { deriveDemoKey } from '../../scripts/demo-keys.ts';
import { postgresDialect } from '../../core/store/dialect/postgres.ts';
import { ROOT } from '../../scripts/runtime-command.ts';
import { BENCH_ACCOUNT, BENCH_ANCHOR } from '../data.ts';
import { EXPORT_SEED, FLOOR_QUERY, measure, whileProcessing, type ExportRun } from './export-runs.ts';
import { numberClient } from './pg-journey-floor.ts';

/** The sides measured on PostgreSQL. */
export type PgExportSide = 'ours' | 'floor' | 'copy' | 'durable';

/** Rows a naive cursor fetches per round trip. */
const FETCH = 1_000;

const EXPORT_KEY = deriveDemoKey(EXPORT_SEED, 'export bench');

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

/** The table the durable floor stores its file in, in the bench database, dropped after each run. */
const DURABLE_TABLE = 'bench_durable_floor_chunks';

/**
 * Characters of a durable floor chunk: about what one step of ours stores on PostgreSQL (400
 * people's lines of ~450 characters). A chunk ends at a line's end.
 */
export const DURABLE_CHUNK_CHARS = 180_000;

/**
 * The durable floor: the file stored as ours stores it, with nothing else. COPY writes the CSV;
 * each ~180 K characters of it become one row of a chunks table (LZ4 where the server has it, as
 * migration 0014 sets ours), each insert its own commit with synchronous_commit off, as our steps
 * commit. No snapshot of the selection, no steps between requests, nothing to resume: what storing
 * the file as ours does costs with nothing else.
 */
async function durable(url: string): Promise<ExportRun> {
  const reader = await numberClient(url);
  const writer = await numberClient(url);
  try {
    await writer.query(`drop table if exists ${DURABLE_TABLE}`);
    await writer.query(`create table ${DURABLE_TABLE} (job_id text not null, seq integer not null, data text not null, primary key (job_id, seq))`);
    await withKysely(url, (db) => postgresDialect.fastCompression(db, DURABLE_TABLE, 'data'));
    await writer.query('set synchronous_commit = off');
    return await measure(async () => {
      const stream = reader.query(copyTo(`copy (${FLOOR_QUERY}) to stdout with (format csv, header)`));
      const decoder = new StringDecoder('utf8');
      let seq = 0;
      let pending = '';
      const store = (text: string) => writer.query(`insert into ${DURABLE_TABLE} (job_id, seq, data) values ('floor', $1, $2)`, [seq++, text]);
      for await (const bytes of stream as AsyncIterable<Buffer>) {
        pending += decoder.write(bytes);
        if (pending.length < DURABLE_CHUNK_CHARS) continue;
        const end = pending.lastIndexOf('\n') + 1;
        if (end === 0) continue;
        await store(pending.slice(0, end));
        pending = pending.slice(end);
      }
      pending += decoder.end();
      if (pending !== '') await store(pending);
      return stream.rowCount;
    });
  } finally {
    await writer.query(`drop table if exists ${DURABLE_TABLE}`).catch(() => undefined);
    await Promise.all([reader.end(), writer.end()]);
  }
}

/** Runs `work` on a Kysely instance over the database, then closes it: the dialect's pieces take one. */
async function withKysely(url: string, work: (db: Kysely<any>) => Promise<void>): Promise<void> {
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  try {
    await work(db);
  } finally {
    await db.destroy();
  }
}

const SIDES: Record<PgExportSide, (url: string) => Promise<ExportRun>> = { ours, floor, copy, durable };

/** Measures one side in a fresh process (this file run as a script); its error message when it fails. */
export function pgInChild(side: PgExportSide, url: string): ExportRun {
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, '--run', side, '--db', url], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return JSON.parse(out.trim().split('\n').pop()!) as ExportRun;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const reason = /^Error: (.*)$/m.exec(stderr)?.[1] ?? stderr.trim().split('\n').pop() ?? String(error);
    throw new Error(`${side}: ${reason}`);
  }
}

function runAsScript(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === import.meta.filename;
  } catch {
    return false;
  }
}

if (runAsScript()) {
  const { values } = parseArgs({ options: { run: { type: 'string' }, db: { type: 'string' } } });
  const side = values.run as PgExportSide;
  if (!(side in SIDES) || !values.db) throw new Error('usage: pg-export-runs.ts --run ours|floor|copy|durable --db URL');
  console.log(JSON.stringify(await SIDES[side](values.db)));
}
