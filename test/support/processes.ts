import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, runtimeCommand, type Runtime } from '../../scripts/runtime-command.ts';
import { freshSchema } from './schema-names.ts';

/** How a child process ended: its exit code, or the signal that ended it. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A child process a test started: its output so far (stdout and stderr as they came), how it
 * ended, and how to end it. Several of them make the multi-process tests: API processes on one
 * database, killed or stopped in turn.
 */
export class TestProcess {
  #output = '';
  /** Resolves when the process has ended. */
  readonly ended: Promise<Ended>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout!.on('data', (d) => (this.#output += d));
    child.stderr!.on('data', (d) => (this.#output += d));
    this.ended = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `[program, ...args]` from the project's root (or `cwd`), with NO_COLOR and CI set. */
  static spawn(name: string, command: readonly string[], { cwd = ROOT, env = {} }: { cwd?: string; env?: Record<string, string> } = {}): TestProcess {
    const child = spawn(command[0]!, command.slice(1), { cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return new TestProcess(name, child);
  }

  /** Everything it printed so far. */
  output(): string {
    return this.#output;
  }

  /** Whether it is still running. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first match of `pattern` in the output, once it appears; fails if the process ends first or after `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 90_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.#output);
      if (match) return match;
      if (!this.running) throw new Error(`${this.name} ended (${this.child.exitCode ?? this.child.signalCode}) before printing ${pattern}:\n${this.#output}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms:\n${this.#output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Sends `signal` (SIGTERM by default; SIGKILL to kill it outright) and resolves with how it ended. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Ended> {
    if (this.running) this.child.kill(signal);
    return this.ended;
  }
}

/** What `serve --keys-out` writes. */
export interface ServeKeys {
  baseUrl: string;
  accountKey: string;
  scopedKeys: { domain: string; clientRef: string | null; key: string }[];
  adminToken: string;
}

/** A `visitor-intelligence serve` process that listens. */
export interface ServeProcess {
  process: TestProcess;
  /** Its base URL, `http://127.0.0.1:port`. */
  url: string;
  keys: ServeKeys;
}

/** Which `serve` to run: the built bin as an installed package runs it (`npm run build` first), or the sources under a runtime. */
export type ServeCommand = 'bin' | Runtime;

function serveCommand(which: ServeCommand): string[] {
  if (which !== 'bin') return runtimeCommand(which, 'scripts/cli.ts');
  const bin = join(ROOT, 'dist/scripts/cli.js');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`);
  return [process.execPath, bin];
}

/**
 * Spawns `serve` with `args` on a free port, writing its keys to `<dir>/<name>.keys.json`:
 * `ready` resolves once it listens and has written them (and kills it if it never does), while
 * `process` can be watched before that (a start that waits for another's seed, say).
 */
export function spawnServe(name: string, args: readonly string[], { dir, command = 'bin', env }: { dir: string; command?: ServeCommand; env?: Record<string, string> }): { process: TestProcess; ready: Promise<ServeProcess> } {
  const keysOut = join(dir, `${name}.keys.json`);
  const child = TestProcess.spawn(name, [...serveCommand(command), 'serve', '--port', '0', '--keys-out', keysOut, ...args], { env });
  const ready = (async () => {
    try {
      const [, url] = await child.waitFor(/listening on (http:\/\/\S+)/);
      await child.waitFor(/Keys written to/);
      return { process: child, url: url!, keys: JSON.parse(readFileSync(keysOut, 'utf8')) as ServeKeys };
    } catch (error) {
      await child.stop('SIGKILL');
      throw error;
    }
  })();
  return { process: child, ready };
}

/** Starts `serve` as {@link spawnServe} does and resolves once it is ready. */
export function startServe(name: string, args: readonly string[], options: { dir: string; command?: ServeCommand; env?: Record<string, string> }): Promise<ServeProcess> {
  return spawnServe(name, args, options).ready;
}

/**
 * Starts `count` `serve` processes at the same moment with the same arguments (named `<name>-1`…).
 * If any fails to start, every one is killed and the error carries each one's output.
 */
export async function startServers(count: number, name: string, args: readonly string[], options: { dir: string; command?: ServeCommand; env?: Record<string, string> }): Promise<ServeProcess[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startServe(`${name}-${i + 1}`, args, options)));
  const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (failed.length === 0) return servers;
  await stopAll(servers, 'SIGKILL');
  throw new Error(failed.map((f) => String(f.reason instanceof Error ? f.reason.message : f.reason)).join('\n\n'));
}

/** Stops every server (SIGTERM by default) and resolves with how each ended. */
export function stopAll(servers: readonly (ServeProcess | undefined)[], signal: NodeJS.Signals = 'SIGTERM'): Promise<(Ended | undefined)[]> {
  return Promise.all(servers.map((s) => s?.process.stop(signal)));
}

/**
 * How a URL chooses its schema: `options=-c search_path=<schema>`, which `pg` passes to the server
 * as a startup option, so every connection starts there (PgBouncer before 1.20 refuses it); or the
 * API's own `schema=<schema>`, named in every statement, which works behind any pooler.
 */
export type SchemaWay = 'options' | 'schema';

/**
 * A fresh schema on the PostgreSQL server at `url` (named under this run's prefix, so the run's
 * end drops it), and a URL whose connections work in it, chosen `way`.
 */
export async function schemaUrl(url: string, way: SchemaWay = 'options'): Promise<{ url: string; schema: string }> {
  const schema = freshSchema();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create schema "${schema}"`);
  } finally {
    await client.end();
  }
  const target = new URL(url);
  if (way === 'options') target.searchParams.set('options', `-c search_path=${schema}`);
  else target.searchParams.set('schema', schema);
  return { url: target.toString(), schema };
}
