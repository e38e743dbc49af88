import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestProcess } from './processes.ts';
import { freePort } from './throwaway-cluster.ts';

/** Debian installs it under /usr/sbin, which a user's PATH may lack. */
const PROGRAM = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';

/**
 * A real PgBouncer (Debian's `pgbouncer`, which `.ci/run` installs) in transaction mode on a free
 * loopback port, in front of one PostgreSQL server, with its ini and user list in a folder of its
 * own. It accepts every database of that server under the same name, and the server's users
 * without a password (`auth_type = trust`).
 */
export class PgBouncer {
  private constructor(
    readonly port: number,
    readonly process: TestProcess,
    private readonly dir: string,
  ) {}

  /**
   * Starts one in front of the server of `serverUrl` (the main test server by default) and
   * resolves once it listens. `poolSize` server connections per database and user: few, so
   * that clients' transactions share them as they would under load. `settings` are more lines of
   * its `[pgbouncer]` section (`server_login_retry`, say).
   */
  static async start({ serverUrl = 'postgres://postgres@127.0.0.1:5432/test', poolSize = 3, settings = {} }: { serverUrl?: string; poolSize?: number; settings?: Record<string, string | number> } = {}): Promise<PgBouncer> {
    const server = new URL(serverUrl);
    const user = decodeURIComponent(server.username || 'postgres');
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'vi-pgbouncer-'));
    const ini = join(dir, 'pgbouncer.ini');
    writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
    const config = (target: URL) =>
      [
        '[databases]',
        `* = host=${target.hostname} port=${target.port || '5432'}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 500',
        ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
        '',
      ].join('\n');
    writeFileSync(ini, config(server));
    // PgBouncer refuses to run as root: it then drops to the postgres user, who must read the folder.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) for (const path of [dir, ini, join(dir, 'userlist.txt')]) chmodSync(path, path === dir ? 0o755 : 0o644);
    const child = TestProcess.spawn('pgbouncer', [PROGRAM, ...(asRoot ? ['-u', 'postgres'] : []), ini]);
    const bouncer = new PgBouncer(port, child, dir);
    bouncer.#configure = (serverUrl) => writeFileSync(ini, config(new URL(serverUrl)));
    try {
      await child.waitFor(/listening on 127\.0\.0\.1:\d+/, 30_000);
    } catch (error) {
      await bouncer.stop();
      throw error;
    }
    return bouncer;
  }

  /** Rewrites its ini for the server of `serverUrl`. */
  #configure: (serverUrl: string) => void = () => undefined;

  /**
   * Points it at another server (a promoted standby), as an operator does after a failover: the
   * ini rewritten, then SIGHUP, which makes it read the ini again; resolves once it says so.
   * Server connections to the old server close as their clients let them go.
   */
  async retarget(serverUrl: string): Promise<void> {
    this.#configure(serverUrl);
    const reloads = () => this.log().match(/got SIGHUP/g)?.length ?? 0;
    const before = reloads();
    this.process.child.kill('SIGHUP');
    for (const deadline = Date.now() + 30_000; reloads() === before; ) {
      if (Date.now() > deadline) throw new Error(`pgbouncer did not reload within 30 s:\n${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A URL of `database` through it, with `params` as the URL's query. */
  url(database: string, params: Record<string, string> = {}, user = 'postgres'): string {
    const url = new URL(`postgres://${user}@127.0.0.1:${this.port}/${database}`);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** What it logged so far (connections, and any error or warning). */
  log(): string {
    return this.process.output();
  }

  /** Stops it (SIGTERM: it closes its connections at once) and removes its folder. */
  async stop(): Promise<void> {
    await this.process.stop('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
