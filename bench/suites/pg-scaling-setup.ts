/**
 * What the pg-scaling suite runs on: a throwaway primary with pg_stat_statements, its streaming
 * standby, and a PgBouncer in transaction mode in front of each; the failover it times; and the
 * statement time it reads back. Built from the test suite's own helpers (test/support), so the
 * bench and the failover tests drive the same servers the same way.
 */
import { PgBouncer } from '../../test/support/pgbouncer.ts';
import { query } from '../../test/support/standby.ts';
import { ThrowawayCluster } from '../../test/support/throwaway-cluster.ts';

/** Seconds PgBouncer waits before logging in again after a failed login: low, so a failover ends soon. */
const LOGIN_RETRY = 0.1;
/** Server connections per database in each pooler: a few per core, as one would size it. */
const POOL_SIZE = 8;

/** The servers of one run, and the URLs `serve` takes. */
export interface ScalingServers {
  primary: ThrowawayCluster;
  standby: ThrowawayCluster;
  /** `--db`: the primary through its PgBouncer. */
  db: string;
  /** `--read-db`: the standby through its own PgBouncer. */
  readDb: string;
  /** The primary's PgBouncer, which a failover points at the standby. */
  bouncer: PgBouncer;
  /** Stops the poolers and drops both clusters. */
  close(): Promise<void>;
}

/** A URL of the API's database through `bouncer`, as the docs give it for PgBouncer. */
const viaBouncer = (bouncer: PgBouncer) => bouncer.url('vi', { pgbouncer: 'true', schema: 'public' });

/** Starts the primary (pg_stat_statements loaded), its standby and a pooler in front of each. */
export async function startClusters(): Promise<ScalingServers> {
  const primary = await ThrowawayCluster.create();
  let standby: ThrowawayCluster | undefined;
  const bouncers: PgBouncer[] = [];
  const close = async () => {
    await Promise.all(bouncers.map((b) => b.stop()));
    await Promise.all([primary.drop(), standby?.drop()].map((p) => p?.catch(() => undefined)));
  };
  try {
    // Loaded before the base backup, whose copy of postgresql.auto.conf gives it to the standby too.
    await query(primary, "alter system set shared_preload_libraries = 'pg_stat_statements'");
    await primary.stop();
    await primary.start();
    await query(primary, 'create extension pg_stat_statements');
    standby = await ThrowawayCluster.standbyOf(primary);
    for (const server of [primary, standby]) bouncers.push(await PgBouncer.start({ serverUrl: server.url(), poolSize: POOL_SIZE, settings: { server_login_retry: LOGIN_RETRY } }));
    return { primary, standby, db: viaBouncer(bouncers[0]!), readDb: viaBouncer(bouncers[1]!), bouncer: bouncers[0]!, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The person with the most events: the events page the suite loads is theirs. */
export async function busiestPerson(servers: ScalingServers): Promise<string> {
  const [row] = await query<{ id: string }>(servers.primary, 'select p.id from people p join events e on e.person_pk = p.pk group by p.id order by count(*) desc, p.id limit 1');
  if (!row) throw new Error('the seeded database holds no events');
  return row.id;
}

/**
 * Statement time by kind on a cluster, since the last {@link resetStatements}: reads
 * (statements that begin with SELECT), count writes (the rate-limit upsert), and everything.
 */
export interface StatementTime {
  readMs: number;
  countWrites: number;
  totalMs: number;
}

/** Forgets what pg_stat_statements recorded on each cluster (a standby's are its own). */
export async function resetStatements(clusters: ThrowawayCluster[]): Promise<void> {
  for (const cluster of clusters) await query(cluster, 'select pg_stat_statements_reset()');
}

/** What the API's database ran on the cluster since the reset. */
export async function statementTime(cluster: ThrowawayCluster): Promise<StatementTime> {
  const [row] = await query<{ read: number; writes: number; total: number }>(
    cluster,
    `select coalesce(sum(total_exec_time) filter (where query ~* '^\\s*select'), 0)::float8 as read,
            coalesce(sum(calls) filter (where query ~* '^\\s*insert\\s+into\\s+("?\\w+"?\\.)?"?rate_limits'), 0)::float8 as writes,
            coalesce(sum(total_exec_time), 0)::float8 as total
       from pg_stat_statements
      where dbid = (select oid from pg_database where datname = 'vi') and query not like '%pg_stat_statements%'`,
  );
  return { readMs: row!.read, countWrites: row!.writes, totalMs: row!.total };
}

/**
 * A failover as an operator makes one: the primary stops, the standby is promoted, and the
 * primary's pooler is pointed at it. Resolves with the milliseconds from the stop until every
 * URL of `ready` has answered 200 again.
 */
export async function timeFailover(servers: ScalingServers, ready: (() => Promise<boolean>)[]): Promise<number> {
  const started = performance.now();
  await servers.primary.stop();
  await servers.standby.promote();
  await servers.bouncer.retarget(servers.standby.url());
  await Promise.all(
    ready.map(async (answers) => {
      while (!(await answers().catch(() => false))) await new Promise((resolve) => setTimeout(resolve, 10));
    }),
  );
  return performance.now() - started;
}
