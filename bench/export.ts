/**
 * Export benchmark: rows per second and peak memory growth of our export against the naive
 * floor (better-sqlite3 `iterate()` of objects piped into fast-csv), over the same people.
 *
 *   npm run bench:export -- --people 1000000 --seed 42
 *
 * The database is built once per seed and size under bench/.cache and reused. The pieces are
 * exported for the export suite of `npm run bench` (bench/suites/export.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { format } from 'fast-csv';
import { createApi, ManualClock } from '../adapters/node/index.ts';
import { generateDemo } from '../scripts/demo/generate.ts';
import { terminalProgress } from '../scripts/demo/progress.ts';

/** The seed of the export databases, unless told otherwise. */
export const EXPORT_SEED = 42;
const ANCHOR = Date.UTC(2026, 10, 20, 12);
const CACHE = join(import.meta.dirname, '.cache');

/** The rows every side exports, in file order: people with their company and attributed site. */
export const FLOOR_QUERY = `
    select p.*, c.id as company_id, c.name as company_name, c.domain as company_domain, c.standardized_industry,
           c.location as company_location, c.employee_count, s.domain as site_domain, s.client_ref
    from people p left join companies c on c.pk = p.company_pk join sites s on s.pk = p.last_site_pk
    where p.account_id = 'acc_bench' order by p.last_seen desc, p.id desc`;

/** Builds (or reuses) a database with `people` demo people and no events: exports read people only. */
export async function exportDatabase(people: number, seed: number = EXPORT_SEED): Promise<string> {
  const path = join(CACHE, `export-${seed}-${people}.sqlite`);
  if (existsSync(path)) return path;
  mkdirSync(CACHE, { recursive: true });
  const partial = `${path}.building`;
  rmSync(partial, { force: true });
  const api = await createApi({ database: partial, clock: new ManualClock(ANCHOR) });
  await api.admin.createAccount({ id: 'acc_bench', name: 'Bench' });
  const demo = generateDemo({ seed, people, anchor: ANCHOR });
  for (const site of demo.sites) await api.admin.registerSite('acc_bench', site);
  await api.admin.loadCompanies('acc_bench', demo.companies);
  const progress = terminalProgress(`Building ${people.toLocaleString('en')} people`);
  for (let i = 0; i < demo.people.length; i += 5000) {
    await api.admin.loadPeople('acc_bench', demo.people.slice(i, i + 5000));
    progress.update({ phase: 'people', done: Math.min(i + 5000, people), total: people });
  }
  progress.stop();
  await api.close();
  renameSync(partial, path);
  return path;
}

/** Runs `work` while sampling resident memory; returns seconds taken and peak growth in MB. */
async function measure(work: () => Promise<number>): Promise<{ rows: number; seconds: number; peakMb: number }> {
  globalThis.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const rows = await work();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { rows, seconds, peakMb: (peak - base) / 2 ** 20 };
}

/** Our export, end to end: POST, the background run writing the CSV into storage, complete. */
async function ours(path: string): Promise<number> {
  const api = await createApi({ database: path, clock: new ManualClock(ANCHOR) });
  const { key } = await api.admin.issueAccountKey('acc_bench');
  const res = await api.fetch(new Request('http://bench/v1/exports', { method: 'POST', headers: { 'x-api-key': key } }));
  const { jobId } = await res.json();
  await api.exportsIdle();
  const job = await (await api.fetch(new Request(`http://bench/v1/exports/${jobId}`, { headers: { 'x-api-key': key } }))).json();
  if (job.status !== 'complete') throw new Error(`export ended ${job.status}: ${job.error}`);
  await api.db.deleteFrom('export_chunks').execute();
  await api.db.deleteFrom('export_jobs').execute();
  await api.close();
  return job.rowCount;
}

/** The naive floor: iterate() objects of the same rows, in the same order, through fast-csv into a file. */
async function floor(path: string): Promise<number> {
  const db = new BetterSqlite3(path, { readonly: true });
  const out = join(tmpdir(), `vi-floor-${process.pid}.csv`);
  const file = createWriteStream(out);
  const csv = format({ headers: true, rowDelimiter: '\r\n', includeEndRowDelimiter: true });
  csv.pipe(file);
  let rows = 0;
  const query = db.prepare(FLOOR_QUERY);
  for (const row of query.iterate()) {
    rows++;
    if (!csv.write(row)) await new Promise((resolve) => csv.once('drain', resolve));
  }
  csv.end();
  await finished(file);
  db.close();
  rmSync(out, { force: true });
  return rows;
}

/** One measured export run. */
export interface ExportRun {
  rows: number;
  seconds: number;
  peakMb: number;
}

/** Measures one side in a fresh process, so neither inherits the other's heap or the build's. */
export function inChild(run: 'ours' | 'floor', path: string): ExportRun {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', import.meta.filename, '--run', run, '--db', path], {
    cwd: join(import.meta.dirname, '..'),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!) as ExportRun;
}

/** Run as a script (the CLI, or one measured side in a child), not imported by a suite. */
function runAsScript(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === import.meta.filename;
  } catch {
    return false;
  }
}

if (runAsScript()) {
  const { values } = parseArgs({
    options: {
      people: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: String(EXPORT_SEED) },
      runs: { type: 'string', default: '3' },
      run: { type: 'string' },
      db: { type: 'string' },
    },
  });
  if (values.run) {
    const result = await measure(() => (values.run === 'ours' ? ours(values.db!) : floor(values.db!)));
    console.log(JSON.stringify(result));
  } else {
    await cli(Number(values.people), Number(values.seed), Number(values.runs));
  }
}

async function cli(people: number, seed: number, count: number): Promise<void> {
  const path = await exportDatabase(people, seed);
  // Runs alternate between the two sides, so drift in the machine's speed hits both alike.
  const runs: Record<'ours' | 'floor', ExportRun[]> = { ours: [], floor: [] };
  for (let i = 0; i < count; i++) {
    runs.ours.push(inChild('ours', path));
    runs.floor.push(inChild('floor', path));
  }
  const rate = (r: ExportRun) => r.rows / r.seconds;
  const median = (rs: ExportRun[]) => [...rs].sort((a, b) => rate(a) - rate(b))[Math.floor(rs.length / 2)]!;
  const results = { ours: median(runs.ours), floor: median(runs.floor) };
  const peak = (rs: ExportRun[]) => Math.max(...rs.map((r) => r.peakMb));
  console.log(`\nExport of ${people.toLocaleString('en')} people (seed ${seed}; median of ${count} runs each)`);
  console.log('| what | rows | seconds | rows/s | peak memory growth (worst run) |');
  console.log('|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results) as ['ours' | 'floor', ExportRun][]) {
    const label = name === 'ours' ? 'our export (POST → complete)' : 'naive floor: iterate() → fast-csv';
    console.log(`| ${label} | ${r.rows} | ${r.seconds.toFixed(2)} | ${Math.round(rate(r))} | ${peak(runs[name]).toFixed(1)} MB |`);
  }
  console.log(`\nratio to the floor: ${(rate(results.ours) / rate(results.floor)).toFixed(2)}× (target ≥ 1.0); peak growth target < 64 MB`);
}
