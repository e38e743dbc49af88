/**
 * The CPU time a server process has used, split into user and system (kernel) time, read from
 * Linux's /proc. Requests/s over loopback can be capped by the load generator; the server's CPU
 * a request is not, and its system share shows what the kernel does for it (sends, receives).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU seconds a process has used, user and system. */
export interface CpuTime {
  user: number;
  system: number;
}

let ticksPerSecond: number | undefined;

/** Clock ticks a second, the unit of /proc's times (100 on every Linux seen; `getconf` says). */
function ticks(): number {
  if (ticksPerSecond === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout;
    ticksPerSecond = Number(out?.trim()) || 100;
  }
  return ticksPerSecond;
}

/** The process's CPU time so far, or undefined where /proc does not tell (not Linux, process gone). */
export function cpuTimeOf(pid: number | undefined): CpuTime | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (2nd field) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12th and 13th after the name.
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return undefined;
  return { user: user / ticks(), system: system / ticks() };
}

/** What a process used between two readings; undefined if either is missing. */
export function cpuBetween(before: CpuTime | undefined, after: CpuTime | undefined): CpuTime | undefined {
  return before && after ? { user: after.user - before.user, system: after.system - before.system } : undefined;
}
