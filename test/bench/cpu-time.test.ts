import { describe, expect, it } from 'vitest';
import { cpuBetween, cpuTimeOf } from '../../bench/servers/cpu-time.ts';

describe.runIf(process.platform === 'linux')('a process’s CPU time, read from /proc', () => {
  it('grows in user time while the process computes', () => {
    const before = cpuTimeOf(process.pid)!;
    const started = performance.now();
    let x = 0;
    while (performance.now() - started < 100) x += Math.sqrt(x + 1);
    const used = cpuBetween(before, cpuTimeOf(process.pid))!;
    expect(x).toBeGreaterThan(0);
    // 100 ms of computing: at least half of it counted, whatever else the machine does.
    expect(used.user).toBeGreaterThanOrEqual(0.05);
    expect(used.system).toBeGreaterThanOrEqual(0);
  });

  it('is unknown for a process that does not exist', () => {
    expect(cpuTimeOf(2 ** 22 + 1)).toBeUndefined();
    expect(cpuTimeOf(undefined)).toBeUndefined();
    expect(cpuBetween(undefined, { user: 1, system: 0 })).toBeUndefined();
  });
});
