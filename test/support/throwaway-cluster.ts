import { execFile } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the test's own (Debian's `pg_createcluster`, trust auth on loopback),
 * so a test can stop, restart or kill the server without touching the machine's main one.
 */
export class ThrowawayCluster {
  private constructor(
    readonly name: string,
    readonly port: number,
    readonly version: string,
  ) {}

  /** Creates and starts a cluster on a free port, with a database `vi`. */
  static async create(): Promise<ThrowawayCluster> {
    const version = readdirSync('/etc/postgresql').sort().at(-1)!;
    const port = await freePort();
    const cluster = new ThrowawayCluster(`vi_test_${process.pid}_${port}`, port, version);
    await run('pg_createcluster', [version, cluster.name, '--port', String(port), '--start-conf', 'manual', '-o', 'fsync=off', '--', '--auth=trust']);
    try {
      await cluster.start();
      const client = new pg.Client({ connectionString: cluster.url('postgres') });
      await client.connect();
      await client.query('create database vi');
      await client.end();
      return cluster;
    } catch (error) {
      await cluster.drop().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A streaming-replication hot standby of `primary` on a cluster of its own: a cluster made as
   * {@link create} makes one, its data replaced by `pg_basebackup -R` of the primary (which writes
   * `standby.signal` and the primary's conninfo), then started. It serves reads and refuses writes.
   */
  static async standbyOf(primary: ThrowawayCluster): Promise<ThrowawayCluster> {
    const port = await freePort();
    const standby = new ThrowawayCluster(`vi_test_${process.pid}_${port}`, port, primary.version);
    await run('pg_createcluster', [standby.version, standby.name, '--port', String(port), '--start-conf', 'manual', '-o', 'fsync=off', '-o', 'hot_standby=on', '--', '--auth=trust']);
    try {
      const { stdout } = await run('pg_conftool', ['-s', standby.version, standby.name, 'show', 'data_directory']);
      const data = stdout.trim();
      // Emptied, not removed: the server's user may not create the folder again where it lives.
      for (const entry of readdirSync(data)) rmSync(join(data, entry), { recursive: true, force: true });
      await run('runuser', ['-u', 'postgres', '--', 'pg_basebackup', '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast']);
      await standby.start();
      return standby;
    } catch (error) {
      await standby.drop().catch(() => undefined);
      throw error;
    }
  }

  /** The server's log file, where Debian's `pg_createcluster` puts it. */
  get logFile(): string {
    return `/var/log/postgresql/postgresql-${this.version}-${this.name}.log`;
  }

  /** A URL of one of its databases. */
  url(database = 'vi'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await this.#ctl('start');
    await this.ready();
  }

  /** Stops it as an operator would (`-m fast`: open connections are told and closed). */
  async stop(): Promise<void> {
    await this.#ctl('stop', '-m', 'fast');
  }

  /** Promotes a standby to a primary (`pg_ctl promote`, which waits until it accepts writes). */
  async promote(): Promise<void> {
    await this.#ctl('promote');
  }

  /** Resolves once the server accepts connections. */
  async ready(): Promise<void> {
    for (;;) {
      try {
        await run('pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', 'postgres']);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /**
   * Stops it as a failing server goes (`-m immediate`: no checkpoint, every connection dropped at
   * once); started again, it recovers from its write-ahead log.
   */
  async crash(): Promise<void> {
    await this.#ctl('stop', '-m', 'immediate');
  }

  /** Ends every other connection to `database`, as `pg_terminate_backend` does for an operator; how many it ended. */
  async terminateBackends(database = 'vi'): Promise<number> {
    const client = new pg.Client({ connectionString: this.url('postgres') });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  }

  /** Stops and removes it. */
  async drop(): Promise<void> {
    await run('pg_dropcluster', [this.version, this.name, '--stop']);
  }

  #ctl(...args: string[]): Promise<unknown> {
    return run('pg_ctlcluster', ['--skip-systemctl-redirect', this.version, this.name, ...args]);
  }
}

/** A TCP port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
