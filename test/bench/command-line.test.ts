import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs `npm run bench -- …` (bench/run.ts through tsx, as the script does) to its end. */
function bench(args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { encoding: 'utf8', env: { ...process.env, CI: 'true' }, timeout: 60_000 });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('npm run bench -- --help', () => {
  it('prints the usage with every flag and exits 0 without running anything', () => {
    const { status, stdout, stderr } = bench(['--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: bench \[options\]/);
    for (const flag of ['--tiny', '--seed <n>', '--suites <names>', '--out <dir>', '--save', '--postgres <url>']) expect(stdout).toContain(flag);
    expect(stdout).toContain('Only when named in --suites: pg-scaling');
    expect(stderr).toBe('');
  });
});

describe('npm run bench with a bad command line', () => {
  it('names a flag it does not take, as the CLI does, and exits 2 before doing any work', () => {
    const { status, stderr, stdout } = bench(['--out-dir', 'x']);
    expect(status).toBe(2);
    expect(stderr).toBe("error: unknown option '--out-dir'\n(add --help for usage)\n");
    expect(stdout).toBe('');
  });

  it('names a value it cannot use, and exits 2', () => {
    const { status, stderr } = bench(['--seed', 'seven']);
    expect(status).toBe(2);
    expect(stderr).toMatch(/^error: option '--seed <n>' argument 'seven' is invalid\. Must be a whole number/);
  });

  it('names a suite it does not know in one line, and exits 2', () => {
    const { status, stderr } = bench(['--suites', 'journey-paging,nope']);
    expect(status).toBe(2);
    expect(stderr).toBe('error: unknown suite nope; known: journey-paging, people-paging, stats-companies, http, peer, export, reads-during-exports, pg-scaling\n');
  });

  it('refuses to save a smoke run over the committed figures', () => {
    const { status, stderr } = bench(['--tiny', '--save']);
    expect(status).toBe(2);
    expect(stderr).toContain('a smoke run (--tiny) is never saved');
  });
});
