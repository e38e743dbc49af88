import pg from 'pg';
import type { ThrowawayCluster } from './throwaway-cluster.ts';

/**
 * What a test does to a streaming standby made by {@link ThrowawayCluster.standbyOf}: pause and
 * resume its replay, delay it, and wait until it has replayed what the primary wrote. Replication
 * itself goes on while replay is paused: the standby receives the primary's log, it only does
 * not apply it, so what it serves stands still.
 */
export class Replication {
  constructor(
    readonly primary: ThrowawayCluster,
    readonly standby: ThrowawayCluster,
  ) {}

  /** Stops applying the primary's log, and resolves once the standby says it has stopped. */
  async pause(): Promise<void> {
    await query(this.standby, 'select pg_wal_replay_pause()');
    await until(async () => (await query<{ state: string }>(this.standby, 'select pg_get_wal_replay_pause_state() as state'))[0]!.state === 'paused');
  }

  async resume(): Promise<void> {
    await query(this.standby, 'select pg_wal_replay_resume()');
  }

  /** Applies each commit `delay` (`'1s'`) after the primary made it, or at once again with null. */
  async delayApply(delay: string | null): Promise<void> {
    await query(this.standby, delay === null ? 'alter system reset recovery_min_apply_delay' : `alter system set recovery_min_apply_delay = '${delay}'`);
    await query(this.standby, 'select pg_reload_conf()');
  }

  /**
   * Makes the primary's commits wait until the standby has flushed them (`synchronous_standby_names`,
   * `synchronous_commit = on`), so a commit acknowledged to a client survives a failover; resolves
   * once the primary reports the standby as synchronous. Set on the primary alone, after the
   * standby was copied: a promoted standby that named a standby of its own would wait for it forever.
   */
  async synchronous(): Promise<void> {
    await query(this.primary, `alter system set synchronous_standby_names = '*'`);
    await query(this.primary, 'alter system set synchronous_commit = on');
    await query(this.primary, 'select pg_reload_conf()');
    await until(async () => (await query<{ n: number }>(this.primary, `select count(*)::int as n from pg_stat_replication where sync_state = 'sync'`))[0]!.n > 0);
  }

  /** Resolves once the standby has replayed everything the primary had written when called. */
  async caughtUp(database = 'vi'): Promise<void> {
    const [{ lsn }] = (await query<{ lsn: string }>(this.primary, 'select pg_current_wal_lsn()::text as lsn', [], database)) as [{ lsn: string }];
    await until(async () => (await query<{ done: boolean }>(this.standby, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [lsn], database))[0]!.done);
  }
}

/** One statement on a cluster's database, on a connection of its own. */
export async function query<T>(cluster: ThrowawayCluster, text: string, values: unknown[] = [], database = 'vi'): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url(database) });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Polls `done` until it holds; a test's own timeout bounds it. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}
