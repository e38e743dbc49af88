import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The built bin, as an installed package runs it: plain Node, no TypeScript loader (`npm run build` first). */
export const BIN = resolve('dist/scripts/cli.js');

/** What a finished command printed and how it exited. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command (`[program, ...args]`) to completion, collecting its output; killed after `timeoutMs`. */
export function runCommand(command: readonly string[], { cwd = process.cwd(), env = {}, timeoutMs = 120_000 }: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command[0]!, command.slice(1), { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
  });
}

/** Runs the built bin to completion in `cwd`. */
export function runBin(args: string[], { cwd = process.cwd(), env = {} }: { cwd?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);
  return runCommand([process.execPath, BIN, ...args], { cwd, env: { CI: 'true', ...env } });
}

/** Starts a long-running command (serve) and resolves once `ready` appears in its output. */
export async function startBin(args: string[], ready: RegExp, { cwd = process.cwd() } = {}): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (!ready.test(output)) {
    if (child.exitCode !== null) throw new Error(`exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`not ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => output };
}

/** Sends a signal and resolves with the exit code. */
export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => {
    child.once('exit', (code) => done(code));
    child.kill(signal);
  });
}

/** A one-line message: one line on stderr, no stack frame. */
export function oneLine(text: string): string {
  const lines = text.trimEnd().split('\n');
  if (lines.length !== 1 || /^\s+at /m.test(text)) throw new Error(`expected one line, got:\n${text}`);
  return lines[0]!;
}
