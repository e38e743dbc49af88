/**
 * Starting benchmark servers and the load generator as child processes, each pinned to a core
 * of its own where the machine allows (`taskset`, two cores or more): servers on core 1, the
 * load generator on core 0, so neither steals the other's CPU.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/runtime-command.ts';
import type { LoadRequest, LoadResult } from './load.ts';

export { ROOT, RUNTIMES, runtimeCommand, runtimeMissing, type Runtime } from '../../scripts/runtime-command.ts';

let pinnable: boolean | undefined;
/** Whether processes can be pinned to cores: `taskset` present and at least two cores. */
export function canPin(): boolean {
  pinnable ??= availableParallelism() >= 2 && spawnSync('which', ['taskset'], { stdio: 'ignore' }).status === 0;
  return pinnable;
}

/** The command, pinned to one core when pinning is possible. */
export function pinned(core: number, command: string[]): string[] {
  return canPin() ? ['taskset', '-c', String(core), ...command] : command;
}

/** The core servers run on, and the one the load generator (or the measuring process) uses. */
export const SERVER_CORE = 1;
export const LOAD_CORE = 0;

/** A server child that has announced its port. */
export interface ChildServer {
  name: string;
  url: string;
  stop(): Promise<void>;
}

/** Starts `command` (which prints `{"port":N}` once it listens) pinned to the server core. */
export async function startServer(name: string, command: string[], timeoutMs = 90_000): Promise<ChildServer> {
  const [file, ...args] = pinned(SERVER_CORE, command);
  const child = spawn(file!, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let output = '';
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs / 1000} s`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${name} server ${why}:\n${output}`));
    };
    child.on('error', (error) => fail(`failed to spawn (${error.message})`));
    child.on('exit', (code) => fail(`exited early with ${code}`));
    child.stderr!.on('data', (d) => (output += d));
    child.stdout!.on('data', (d) => {
      output += d;
      const line = /^\{"port":(\d+)\}$/m.exec(output);
      if (line) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolvePort(Number(line[1]));
      }
    });
  });
  return { name, url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

/** SIGTERM, then SIGKILL if the child has not exited after five seconds. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => (clearTimeout(force), done()));
    child.kill('SIGTERM');
  });
}

/**
 * Runs a load script (`bench/servers/<script>`) in a child process pinned to the load core, with
 * `request` as its one argument, and returns the JSON of the last line it prints.
 */
export function runLoadScript<R>(script: string, request: unknown): Promise<R> {
  return runJsonChild(script, pinned(LOAD_CORE, [process.execPath, '--import', 'tsx', join(ROOT, 'bench/servers', script), JSON.stringify(request)]));
}

/** Runs a command that prints its result as JSON on its last line. */
function runJsonChild<R>(script: string, command: string[]): Promise<R> {
  return new Promise((done, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out.trim().split('\n').pop()!) as R) : reject(new Error(`${script} exited with ${code}:\n${err}`))));
  });
}

/** Runs autocannon in a child process pinned to the load core; throws when any response failed. */
export async function loadTest(request: LoadRequest): Promise<LoadResult> {
  const result = await runLoadScript<LoadResult>('load.ts', request);
  if (result.non2xx > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(`load run against ${request.url} had ${result.non2xx} non-2xx responses and ${result.errors} errors in ${result.requests} requests`);
  }
  return result;
}

/** Stops every server, whatever happened. */
export async function stopAll(servers: (ChildServer | undefined)[]): Promise<void> {
  await Promise.all(servers.map((s) => s?.stop()));
}
