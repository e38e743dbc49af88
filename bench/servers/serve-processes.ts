/**
 * API processes of the built bin on one database, as an operator runs them:
 * `node dist/scripts/cli.js serve --db … --port 0 --rate-limit …`, each its own process with its
 * own pool (or SQLite connection). They are started one after another: the first seeds the demo
 * into an empty database, the others find it seeded. They are not pinned to a core: the point is
 * to see what N processes get out of the machine's cores, which Postgres and the load share.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/runtime-command.ts';
import { cpuTimeOf } from './cpu-time.ts';

/** The bin the processes run. */
export const CLI = join(ROOT, 'dist/scripts/cli.js');

/** What a started set of processes gives the suite. */
export interface ServeProcesses {
  /** Each process's base URL, in start order. */
  urls: string[];
  /** The demo's account key (from the first process's --keys-out). */
  accountKey: string;
  /** Each process's pid, to read its CPU time. */
  pids: number[];
  stop(): Promise<void>;
}

/** What every process is started with. */
export interface ServeOptions {
  /** A SQLite file or a postgres:// URL. */
  db: string;
  seed: number;
  people: number;
  /** Hourly limit per key: raised out of the way, though every request is still counted (one upsert). */
  rateLimit: number;
  /** Where the first process writes its keys. */
  keysOut: string;
}

/** Builds dist/ when it is missing (the suite runs the bin as shipped, not through tsx). */
export function ensureBuilt(): void {
  if (existsSync(CLI)) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Starts `count` processes on one database, one after another. */
export async function startServeProcesses(count: number, options: ServeOptions): Promise<ServeProcesses> {
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  const stop = () => Promise.all(children.map(stopChild)).then(() => undefined);
  rmSync(options.keysOut, { force: true });
  try {
    for (let i = 0; i < count; i++) {
      const args = [CLI, 'serve', '--db', options.db, '--port', '0', '--seed', String(options.seed), '--people', String(options.people), '--rate-limit', String(options.rateLimit)];
      if (i === 0) args.push('--keys-out', options.keysOut);
      const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
      children.push(child);
      // The first writes its keys after announcing its URL: wait for both.
      urls.push(await listening(child, i === 0 ? 300_000 : 60_000, i === 0 ? /Keys written to/ : undefined));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const { accountKey } = JSON.parse(readFileSync(options.keysOut, 'utf8')) as { accountKey: string };
  return { urls, accountKey, pids: children.map((c) => c.pid!), stop };
}

/** The base URL a serve process announces once it listens (and, when given, once it has also printed `ready`). */
function listening(child: ChildProcess, timeoutMs: number, ready?: RegExp): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      done();
      child.kill('SIGKILL');
      reject(new Error(`serve process ${why}:\n${output.slice(-2000)}`));
    };
    const exited = (code: number | null) => fail(`exited early with ${code}`);
    const collect = (d: Buffer) => (output += d);
    const watch = (d: Buffer) => {
      output += d;
      const line = /listening on (http:\/\/\S+)/.exec(output);
      if (line && (!ready || ready.test(output))) {
        done();
        resolve(line[1]!);
      }
    };
    // Once settled, only the listeners added here go; its output is still drained, so it never blocks on a full pipe.
    const done = () => {
      clearTimeout(timer);
      child.off('exit', exited);
      child.stdout!.off('data', watch).resume();
      child.stderr!.off('data', collect).resume();
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs / 1000} s`), timeoutMs);
    child.on('error', (error) => fail(`failed to spawn (${error.message})`));
    child.on('exit', exited);
    child.stderr!.on('data', collect);
    child.stdout!.on('data', watch);
  });
}

/** SIGTERM (the server finishes open requests and closes its database), SIGKILL after five seconds. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => (clearTimeout(force), done()));
    child.kill('SIGTERM');
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined off Linux. */
export function cpuSeconds(pid: number): number | undefined {
  const used = cpuTimeOf(pid);
  return used && used.user + used.system;
}

/** Busy and total CPU ticks of the whole machine, from /proc/stat; undefined off Linux. */
export function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = cpu.reduce((a, b) => a + b, 0);
    // idle and iowait are the 4th and 5th.
    return { busy: total - cpu[3]! - cpu[4]!, total };
  } catch {
    return undefined;
  }
}
