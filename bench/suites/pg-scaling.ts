/**
 * PostgreSQL scaling suite (`npm run bench -- --suites pg-scaling`, as root): requests per second
 * of a people page and an events page through 1, 2 and 4 `serve` processes of the built bin, all
 * through PgBouncer in transaction mode in front of a throwaway primary, with replica reads
 * (`--read-db`, a streaming standby behind a PgBouncer of its own) off and on; each figure beside
 * the one process without replica reads. Then the time a failover takes to be served again: the
 * primary stopped, the standby promoted, PgBouncer pointed at it. And, from pg_stat_statements,
 * how the database's statement time splits between reads and the primary.
 *
 * The load is one autocannon process spreading a fixed number of connections over the processes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/runtime-command.ts';
import { QUIET } from '../../scripts/progress.ts';
import { startServe, startServers, stopAll, type ServeProcess } from '../../test/support/processes.ts';
import type { CaseResult, SuiteResult } from '../results.ts';
import { loadTest } from '../servers/control.ts';
import type { LoadResult } from '../servers/load.ts';
import { TINY_LOAD, type LoadPlan } from './http.ts';
import { busiestPerson, resetStatements, startClusters, statementTime, timeFailover, type StatementTime } from './pg-scaling-setup.ts';
import type { SuiteOptions } from './suite.ts';

/** What the suite takes from a run: it builds its own database, seeded as `serve` seeds the demo. */
export type ScalingOptions = Pick<SuiteOptions, 'seed' | 'tiny' | 'progress'> & { people: number };

/** Enough connections to keep four processes busy; two rounds per process count and page. */
export const SCALING_LOAD: LoadPlan = { connections: 16, seconds: 5, warmupSeconds: 1, rounds: 2 };
export const PROCESSES = [1, 2, 4] as const;
const MOST = Math.max(...PROCESSES);
/** Larger than any run's requests, so the rate limit never answers 429. */
const NO_LIMIT = '1000000000';

const PAGES = [
  { page: 'people', label: 'people page of 100', path: () => '/v1/people?limit=100' },
  { page: 'events', label: 'events page of 100', path: (personId: string) => `/v1/people/${encodeURIComponent(personId)}/events?limit=100` },
] as const;

/** Why the suite cannot run here, or undefined. */
function missing(): string | undefined {
  if (process.getuid?.() !== 0) return 'it makes throwaway clusters with pg_createcluster, which needs root';
  const found = (program: string) => spawnSync('sh', ['-c', `command -v ${program} || test -x /usr/sbin/${program}`], { stdio: 'ignore' }).status === 0;
  for (const program of ['pg_createcluster', 'pgbouncer']) if (!found(program)) return `${program} is not installed (Debian's postgresql-common and pgbouncer)`;
  if (!existsSync(join(ROOT, 'dist/scripts/cli.js'))) return 'it runs the built bin: run npm run build first';
  return undefined;
}

const caseName = (label: string, processes: number, replica: boolean) => `${label}, ${processes} process${processes > 1 ? 'es' : ''}, replica reads ${replica ? 'on' : 'off'}`;

export async function pgScalingSuite(options: ScalingOptions): Promise<SuiteResult> {
  const why = missing();
  if (why) throw new Error(`the pg-scaling suite cannot run: ${why}`);
  const plan = options.tiny ? TINY_LOAD : SCALING_LOAD;
  const progress = options.progress ?? QUIET;
  progress.start(2 * plan.rounds * PROCESSES.length * PAGES.length + 1);
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-scaling-'));
  const clusters = await startClusters();
  let running: ServeProcess[] = [];
  try {
    const args = ['--db', clusters.db, '--seed', String(options.seed), '--people', String(options.people), '--rate-limit', NO_LIMIT];
    // Seeded once, by the first process; the others (and the standby) find the demo there.
    running = [await startServe('serve-1', args, { dir })];
    running.push(...(await startServers(MOST - 1, 'serve', args, { dir })));
    const personId = await busiestPerson(clusters);
    const key = running[0]!.keys.accountKey;
    const runs = new Map<string, LoadResult[]>();
    const time = new Map<string, Split>();

    for (const replica of [false, true]) {
      if (replica) {
        await stopAll(running);
        running = await startServers(MOST, 'serve-read', [...args, '--read-db', clusters.readDb], { dir });
      }
      const measured = replica ? [clusters.primary, clusters.standby] : [clusters.primary];
      for (let round = 0; round < plan.rounds; round++) {
        for (const processes of PROCESSES) {
          for (const { page, label, path } of PAGES) {
            const name = caseName(label, processes, replica);
            const url = running.slice(0, processes).map((s) => s.url + path(personId));
            // One process's statements tell how a request's database time splits.
            if (processes === 1) await resetStatements(measured);
            const load = await loadTest({ url, connections: plan.connections, seconds: plan.seconds, amount: plan.amount, warmupSeconds: plan.warmupSeconds, headers: { 'x-api-key': key } });
            if (processes === 1) addTime(time, `${page}, replica reads ${replica ? 'on' : 'off'}`, load, await statementTime(clusters.primary), replica ? await statementTime(clusters.standby) : undefined);
            runs.set(name, [...(runs.get(name) ?? []), load]);
            progress.step(name);
          }
        }
      }
    }

    const peoplePath = PAGES[0].path();
    const failoverMs = await timeFailover(
      clusters,
      running.map((s) => async () => (await fetch(s.url + peoplePath, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(2000) })).status === 200),
    );
    progress.step('failover');
    return {
      suite: 'pg-scaling',
      title: 'PostgreSQL scaling: serve processes through PgBouncer, replica reads off and on, and a failover',
      cases: [...throughputCases(runs, plan), ...shareCases(time), failoverCase(failoverMs, running.length)],
      targets: [],
    };
  } finally {
    await stopAll(running, 'SIGKILL');
    await clusters.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Statement time and requests of a page's one-process runs, summed over rounds. */
type Split = { primary: StatementTime; standby?: StatementTime; requests: number };

function addTime(time: Map<string, Split>, key: string, load: LoadResult, primary: StatementTime, standby?: StatementTime): void {
  const was = time.get(key);
  const add = (a: StatementTime | undefined, b: StatementTime) => (a ? { readMs: a.readMs + b.readMs, countWrites: a.countWrites + b.countWrites, totalMs: a.totalMs + b.totalMs } : b);
  time.set(key, { primary: add(was?.primary, primary), standby: standby && add(was?.standby, standby), requests: (was?.requests ?? 0) + load.requests + load.warmupRequests });
}

/** Each process count and replica setting per page, beside one process without replica reads. */
function throughputCases(runs: Map<string, LoadResult[]>, plan: LoadPlan): CaseResult[] {
  return PAGES.flatMap(({ page, label }) => {
    const base = caseName(label, 1, false);
    return [false, true].flatMap((replica) =>
      PROCESSES.map((processes): CaseResult => {
        const name = caseName(label, processes, replica);
        const loads = runs.get(name)!;
        const requests = loads.reduce((n, r) => n + r.requests, 0);
        const seconds = loads.reduce((n, r) => n + r.seconds, 0);
        const params = { page, processes, replicaReads: replica ? 'on' : 'off', connections: plan.connections };
        return name === base
          ? { name, role: 'floor', perSecond: requests / seconds, unit: 'req/s', samples: requests, params }
          : { name, role: 'ours', perSecond: requests / seconds, unit: 'req/s', samples: requests, params: { ...params, floor: base } };
      }),
    );
  });
}

/** How a request's statement time splits: reads against the rest, the primary against the standby, and count writes. */
function shareCases(time: Map<string, Split>): CaseResult[] {
  const cases: CaseResult[] = [];
  let requests = 0;
  let writes = 0;
  for (const { page, label } of PAGES) {
    const off = time.get(`${page}, replica reads off`)!;
    const on = time.get(`${page}, replica reads on`)!;
    requests += off.requests;
    writes += off.primary.countWrites;
    const share = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 0);
    cases.push(
      { name: `${label}: reads' share of statement time, replica reads off`, role: 'ours', perSecond: share(off.primary.readMs, off.primary.totalMs), unit: '%', samples: off.requests, params: { page, replicaReads: 'off' } },
      { name: `${label}: the primary's share of statement time, replica reads on`, role: 'ours', perSecond: share(on.primary.totalMs, on.primary.totalMs + on.standby!.totalMs), unit: '%', samples: on.requests, params: { page, replicaReads: 'on' } },
    );
  }
  cases.push({ name: 'requests per rate-limit count write, 1 process', role: 'ours', perSecond: writes > 0 ? requests / writes : 0, samples: requests, params: { processes: 1 } });
  return cases;
}

function failoverCase(ms: number, processes: number): CaseResult {
  return { name: `failover: primary stopped → all ${processes} processes answer 200 (promote, PgBouncer reload)`, role: 'ours', medianMs: ms, samples: 1, params: { processes, replicaReads: 'on' } };
}
