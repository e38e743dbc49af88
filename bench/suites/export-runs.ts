/**
 * One measured export of each side, in a fresh process so neither inherits the other's heap or
 * the build's: our export (POST → complete) and the naive floor (better-sqlite3 `iterate()` of
 * objects piped into fast-csv), over the same people. The export suite spawns this file as
 *
 *   node --expose-gc --import tsx bench/suites/export-runs.ts --run ours|floor --db FILE
 *
 * which prints the run as one JSON line.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { format } from 'fast-csv';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { deriveDemoKey } from '../../scripts/demo-keys.ts';
import { ROOT } from '../../scripts/runtime-command.ts';
import { BENCH_ACCOUNT, BENCH_ANCHOR } from '../data.ts';
import { ownResident } from '../resident-memory.ts';


/** The rows every side exports, in file order: the 31 columns of an export file (people with their company and attributed site), nothing else the tables hold. */
export const FLOOR_QUERY = `
    select p.id, p.email, p.business_email, p.personal_email, p.first_name, p.last_name, p.title, p.company, p.location,
           p.region, p.linkedin_url, p.phone, p.profile_image_url, p.visit_count, p.first_seen, p.last_seen, p.is_hot_lead,
           p.classified_seniority, p.classified_job_function, p.traffic_type, p.ad_platform,
           c.id as company_id, c.name as company_name, c.domain as company_domain, c.standardized_industry,
           c.location as company_location, c.employee_count, s.domain as site_domain, s.client_ref, p.campaign, p.crm_status
    from people p left join companies c on c.pk = p.company_pk join sites s on s.pk = p.last_site_pk
    where p.account_id = '${BENCH_ACCOUNT}' order by p.last_seen desc, p.id desc`;

/** One measured export run. */
export interface ExportRun {
  rows: number;
  seconds: number;
  peakMb: number;
}

/** Runs `work` while sampling the process's own resident memory; returns seconds taken and peak growth in MB. */
export async function measure(work: () => Promise<number>): Promise<ExportRun> {
  globalThis.gc?.();
  const base = ownResident();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, ownResident())), 20);
  const started = performance.now();
  const rows = await work();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, ownResident());
  return { rows, seconds, peakMb: (peak - base) / 2 ** 20 };
}

/** The key the export runs use, on either backend: derived from a fixed seed, so every run finds the key an earlier one issued instead of piling keys up. */
export const EXPORT_KEY = deriveDemoKey(42, 'export bench');

/** How often the bench looks whether our export is complete (a read of its job, outside the API). */
const WATCH_MS = 10;

/** Resolves once the job is no longer `processing`, reading its status every 10 ms on a connection of the bench's own (no request of the API's). */
export async function whileProcessing(status: (jobId: string) => unknown, jobId: string): Promise<void> {
  while ((await status(jobId)) === 'processing') await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
}

/**
 * Our export, POST → complete: the background run writing the CSV into storage, until its job is
 * complete (the file can be downloaded), as a client polling it sees. Its cleanup (the selection's
 * members deleted in steps) follows outside the timing, as do opening the database, issuing the
 * key, and dropping the job and closing afterwards, as opening the file is for the floor.
 */
async function ours(path: string): Promise<ExportRun> {
  const api = await createApi({ database: path, clock: new ManualClock(BENCH_ANCHOR) });
  if (!(await api.admin.describeKey(EXPORT_KEY))) await api.admin.issueAccountKey(BENCH_ACCOUNT, { label: 'export bench', value: EXPORT_KEY });
  const watch = new BetterSqlite3(path, { readonly: true });
  const status = watch.prepare('select status from export_jobs where id = ?').pluck();
  const headers = { 'x-api-key': EXPORT_KEY };
  let jobId = '';
  const result = await measure(async () => {
    const res = await api.fetch(new Request('http://bench/v1/exports', { method: 'POST', headers }));
    ({ jobId } = await res.json());
    await whileProcessing((id) => status.get(id), jobId);
    return 0;
  });
  await api.exportsIdle();
  watch.close();
  const job = await (await api.fetch(new Request(`http://bench/v1/exports/${jobId}`, { headers }))).json();
  if (job.status !== 'complete') throw new Error(`export ended ${job.status}: ${job.error}`);
  await api.db.deleteFrom('export_chunks').execute();
  await api.db.deleteFrom('export_jobs').execute();
  await api.close();
  return { ...result, rows: job.rowCount };
}

/** The naive floor: iterate() objects of the same rows, in the same order, through fast-csv into a file. */
async function floor(path: string): Promise<ExportRun> {
  const db = new BetterSqlite3(path, { readonly: true });
  const out = join(tmpdir(), `vi-floor-${process.pid}.csv`);
  const result = await measure(async () => {
    const file = createWriteStream(out);
    const csv = format({ headers: true, rowDelimiter: '\r\n', includeEndRowDelimiter: true });
    csv.pipe(file);
    let rows = 0;
    for (const row of db.prepare(FLOOR_QUERY).iterate()) {
      rows++;
      if (!csv.write(row)) await new Promise((resolve) => csv.once('drain', resolve));
    }
    csv.end();
    await finished(file);
    return rows;
  });
  db.close();
  rmSync(out, { force: true });
  return result;
}

/** The sides a child process measures. */
const SIDES = { ours, floor };
export type ExportSide = keyof typeof SIDES;

/** Measures one side in a fresh process (`script` run with `--run side --db db`); fails with the child's own error message. */
export function measuredInChild(script: string, side: string, db: string): ExportRun {
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--run', side, '--db', db], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return JSON.parse(out.trim().split('\n').pop()!) as ExportRun;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const reason = /^Error: (.*)$/m.exec(stderr)?.[1] ?? stderr.trim().split('\n').pop() ?? String(error);
    throw new Error(`${side}: ${reason}`);
  }
}

/** Measures one side on SQLite in a fresh process. */
export function inChild(run: ExportSide, path: string): ExportRun {
  return measuredInChild(import.meta.filename, run, path);
}

/** Whether `file` is the script this process runs (a side measured by {@link measuredInChild}), not a module the suite imports. */
export function runsAsScript(file: string): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === file;
  } catch {
    return false;
  }
}

if (runsAsScript(import.meta.filename)) {
  const { values } = parseArgs({ options: { run: { type: 'string' }, db: { type: 'string' } } });
  const side = SIDES[values.run as ExportSide];
  if (!Object.hasOwn(SIDES, values.run ?? '') || !values.db) throw new Error('usage: export-runs.ts --run ours|floor --db FILE');
  console.log(JSON.stringify(await side(values.db)));
}
