import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs a bench command (as `npm run …` does, through tsx) to its end. */
function run(script: string, args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', env: { ...process.env, CI: 'true' }, timeout: 60_000 });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

const COMMANDS = [
  ['bench', 'bench/run.ts'],
  ['bench:export', 'bench/export.ts'],
  ['bench:reads', 'bench/reads-during-exports.ts'],
] as const;

describe.each(COMMANDS)('npm run %s with a bad command line', (command, script) => {
  it('names a flag it does not take in one line, and exits 2 before doing any work', () => {
    const { status, stderr, stdout } = run(script, ['--out-dir', 'x']);
    expect(status).toBe(2);
    expect(stderr).toMatch(new RegExp(`^${command}: Unknown option '--out-dir'.*\\n$`));
    expect(stderr.split('\n')).toHaveLength(2);
    expect(stdout).toBe('');
  });

  it('names a value it cannot use in one line, and exits 2', () => {
    const { status, stderr } = run(script, ['--seed', 'seven']);
    expect(status).toBe(2);
    expect(stderr).toBe(`${command}: --seed must be a positive integer, got seven\n`);
  });
});
