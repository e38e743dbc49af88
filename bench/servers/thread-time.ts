/**
 * Where the calling thread's time went while a case was sampled: on a CPU, or runnable and
 * waiting for one (Linux's /proc/thread-self/schedstat: nanoseconds on the CPU, nanoseconds on a
 * run queue). A case whose samples were slow while its thread waited for the CPU shared the core
 * with something else; one slow with the thread on the CPU all along ran slower where it ran
 * (caches, memory, the host's other work: a busy other core here does not slow it), which no
 * waiting explains.
 */
import { readFileSync } from 'node:fs';
import type { ThreadTime } from '../results.ts';

const SCHEDSTAT = '/proc/thread-self/schedstat';

/** The calling thread's [on-CPU, run-queue] nanoseconds so far, or undefined where the kernel does not say (not Linux). */
export function schedstat(): [number, number] | undefined {
  try {
    const [cpu, waited] = readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
    return cpu === undefined || waited === undefined || Number.isNaN(cpu + waited) ? undefined : [cpu, waited];
  } catch {
    return undefined;
  }
}

/** Runs `work` and adds its wall time and the thread's CPU and run-queue time to `into` (wall time only where schedstat is missing). */
export async function timed<T>(into: ThreadTime, work: () => Promise<T>): Promise<T> {
  const before = schedstat();
  const started = performance.now();
  const result = await work();
  into.wallMs += performance.now() - started;
  const after = schedstat();
  if (before && after) {
    into.cpuMs += (after[0] - before[0]) / 1e6;
    into.runQueueMs += (after[1] - before[1]) / 1e6;
  }
  return result;
}

/** `98.9% on a CPU, 0.4% waiting for one`: how a case's sampling time split. */
export function describeThreadTime(t: ThreadTime): string {
  const share = (ms: number) => `${((ms / t.wallMs) * 100).toFixed(1)}%`;
  return `${share(t.cpuMs)} on a CPU, ${share(t.runQueueMs)} waiting for one`;
}
