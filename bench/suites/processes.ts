/**
 * Processes suite: HTTP requests per second with 1, 2 and 4 API processes of the built bin on one
 * database, on the events page and the people page. autocannon (one process, pinned to the load
 * core where possible) spreads a fixed number of connections over the processes in use. Four
 * processes are started once and the load goes to the first N of them, rounds interleaving the
 * counts, so drift falls on every count alike. On PostgreSQL (`--postgres`) the database is
 * created for the run and dropped after; a SQLite file (WAL) gets the same load for comparison.
 *
 * Every request is still counted by the rate limiter (the limit is raised out of the way, not
 * switched off): one upsert of the key's row per request, which all processes share.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { connect, databaseUrl, dropDatabases, ident, type PostgresTarget } from '../postgres-data.ts';
import type { CaseResult, SuiteResult } from '../results.ts';
import { canPin, loadTest } from '../servers/control.ts';
import type { LoadResult } from '../servers/load.ts';
import { cpuSeconds, ensureBuilt, machineTicks, startServeProcesses, type ServeProcesses } from '../servers/serve-processes.ts';
import { foldRounds, type LoadPlan } from './http.ts';
import { numberClient } from './pg-journey-floor.ts';
import type { SuiteOptions } from './suite.ts';

/** How the suite loads the processes. Connections are a multiple of every count, so each process gets as many. */
export interface ProcessesPlan extends LoadPlan {
  counts: number[];
  /** Demo people the database is seeded with. */
  people: number;
}

export const TINY_PROCESSES: ProcessesPlan = { counts: [1, 2], people: 100, connections: 4, seconds: 1, amount: 40, warmupSeconds: 0, rounds: 1 };
export const DEFAULT_PROCESSES: ProcessesPlan = { counts: [1, 2, 4], people: 2_000, connections: 16, seconds: 5, warmupSeconds: 1, rounds: 3 };

/** Hourly limit far above any run's requests. */
const RATE_LIMIT = 1_000_000_000;

/** The pages loaded, by what the case names call them. */
type Page = 'events page' | 'people page';

export async function processesSuite(options: SuiteOptions): Promise<SuiteResult> {
  const plan = options.tiny ? TINY_PROCESSES : DEFAULT_PROCESSES;
  ensureBuilt();
  const cases: CaseResult[] = [];
  const skipped: string[] = [];
  if (!canPin()) skipped.push('core pinning: taskset or a second core missing, so the load generator shares the cores with the servers');
  if (options.postgres) cases.push(...(await onPostgres(options.postgres, options.seed, plan, options.onCase)));
  else skipped.push('PostgreSQL: no --postgres URL given, so only the SQLite file was measured');
  cases.push(...(await onSqlite(options.seed, plan, options.onCase)));
  return {
    suite: 'processes',
    title: `HTTP with ${plan.counts.join(', ')} API processes of the built bin on one database (${plan.connections} connections spread over them)`,
    cases,
    targets: [],
    ...(skipped.length ? { skipped } : {}),
  };
}

/** A database of the run's own on the server, dropped after. */
async function onPostgres(target: PostgresTarget, seed: number, plan: ProcessesPlan, onCase?: (name: string) => void): Promise<CaseResult[]> {
  const name = `${target.prefix}serve_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await connect(target.url);
  try {
    await admin.query(`create database ${ident(name)}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(target.url, name);
  try {
    return await measureBackend('PostgreSQL', url, () => busiestPostgres(url), seed, plan, onCase);
  } finally {
    await dropDatabases(target.url, name);
  }
}

/** A SQLite file in a temporary folder, removed after. */
async function onSqlite(seed: number, plan: ProcessesPlan, onCase?: (name: string) => void): Promise<CaseResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-procs-'));
  const file = join(dir, 'demo.sqlite');
  try {
    return await measureBackend('SQLite', file, async () => busiestSqlite(file), seed, plan, onCase);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the processes on `db`, loads both pages at every count, round after round. */
async function measureBackend(backend: string, db: string, busiest: () => Promise<string>, seed: number, plan: ProcessesPlan, onCase?: (name: string) => void): Promise<CaseResult[]> {
  const keysDir = mkdtempSync(join(tmpdir(), 'vi-bench-keys-'));
  let procs: ServeProcesses | undefined;
  try {
    onCase?.(`${backend}: starting ${Math.max(...plan.counts)} API processes`);
    procs = await startServeProcesses(Math.max(...plan.counts), { db, seed, people: plan.people, rateLimit: RATE_LIMIT, keysOut: join(keysDir, 'keys.json') });
    const personId = await busiest();
    const paths: Record<Page, string> = { 'events page': `/v1/people/${encodeURIComponent(personId)}/events?limit=100`, 'people page': '/v1/people?limit=100' };
    const runs = new Map<string, { runs: LoadResult[]; cpuMs: number; busy: number; total: number }>();
    const load = { connections: plan.connections, seconds: plan.seconds, amount: plan.amount, warmupSeconds: plan.warmupSeconds, headers: { 'x-api-key': procs.accountKey } };
    for (let round = 0; round < plan.rounds; round++) {
      for (const count of plan.counts) {
        for (const page of Object.keys(paths) as Page[]) {
          const key = `${page}|${count}`;
          if (round === 0) onCase?.(`${backend}: ${page}, ${count} process${count === 1 ? '' : 'es'}`);
          const used = procs.pids.slice(0, count);
          const cpuBefore = sum(used.map(cpuSeconds));
          const ticksBefore = machineTicks();
          const result = await loadTest({ ...load, url: procs.urls.slice(0, count).map((u) => u + paths[page]) });
          const cpuAfter = sum(used.map(cpuSeconds));
          const ticksAfter = machineTicks();
          const entry = runs.get(key) ?? { runs: [], cpuMs: 0, busy: 0, total: 0 };
          entry.runs.push(result);
          if (cpuBefore !== undefined && cpuAfter !== undefined) entry.cpuMs += (cpuAfter - cpuBefore) * 1000;
          if (ticksBefore && ticksAfter) (entry.busy += ticksAfter.busy - ticksBefore.busy), (entry.total += ticksAfter.total - ticksBefore.total);
          runs.set(key, entry);
        }
      }
    }
    const cases: CaseResult[] = [];
    for (const page of Object.keys(paths) as Page[]) {
      for (const count of plan.counts) {
        const entry = runs.get(`${page}|${count}`)!;
        // Warm-ups are in the CPU time, so they are counted too.
        const requests = entry.runs.reduce((n, r) => n + r.requests + r.warmupRequests, 0);
        const folded = foldRounds(`${page} over HTTP, ${count} API process${count === 1 ? '' : 'es'} (${backend})`, 'ours', entry.runs, {
          backend,
          page,
          processes: count,
          connections: plan.connections,
          // CPU of the API processes per request, warm-ups included on both sides.
          ...(entry.cpuMs > 0 ? { apiCpuMsPerRequest: round2(entry.cpuMs / requests) } : {}),
          // Share of all cores busy while loading (servers, database, load generator and anything else on the machine).
          ...(entry.total > 0 ? { machineBusy: round2(entry.busy / entry.total) } : {}),
        });
        cases.push(folded);
      }
    }
    return cases;
  } finally {
    await procs?.stop();
    rmSync(keysDir, { recursive: true, force: true });
  }
}

/** The person with the most events: the events page then holds a full 100. */
const BUSIEST = 'select p.id from people p join events e on e.person_pk = p.pk group by p.pk, p.id order by count(*) desc, p.id limit 1';

async function busiestPostgres(url: string): Promise<string> {
  const client = await numberClient(url);
  try {
    const { rows } = await client.query<{ id: string }>(BUSIEST);
    return rows[0]!.id;
  } finally {
    await client.end();
  }
}

function busiestSqlite(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare<[], { id: string }>(BUSIEST).get()!.id;
  } finally {
    db.close();
  }
}

function sum(values: (number | undefined)[]): number | undefined {
  return values.some((v) => v === undefined) ? undefined : values.reduce((a: number, b) => a + b!, 0);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
