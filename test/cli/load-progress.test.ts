import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin, runCommand } from './bin.ts';

const COMPANIES = Array.from({ length: 1000 }, (_, i) => ({ id: `co_bar_${i}`, name: `Bar ${i}` }));
const RESULT = 'companies-many.json: loaded 1000 companies into acc_demo';
/** The terminal control sequences cli-progress writes: cursor moves, clears, wrap and cursor toggles. */
const CONTROL = /\x1b(\[[0-9;?]*[A-Za-z]|[78])/g;

/** `load`'s progress bar, through the built bin, on a terminal (util-linux `script` gives it one) and off one. */
describe('visitor-intelligence load shows its progress only to a person watching (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-cli-load-bar-'));

  beforeAll(async () => {
    const seeded = await runBin(['seed', '--db', 'demo.sqlite', '--people', '5', '--seed', '3', '--anchor', '2026-11-20T12:00:00Z'], { cwd: dir });
    expect(seeded.code, seeded.stderr).toBe(0);
    writeFileSync(join(dir, 'companies-many.json'), JSON.stringify(COMPANIES));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints only its result when stderr is not a terminal, even outside CI', async () => {
    const { code, stdout, stderr } = await runBin(['load', 'companies-many.json', '--db', 'demo.sqlite'], { cwd: dir, env: { CI: '' } });
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.trim()).toBe(RESULT);
  });

  it('draws a bar within a narrow terminal up to the last item, then prints its result', async () => {
    const command = `stty cols 50; exec '${process.execPath}' '${BIN}' load companies-many.json --db demo.sqlite`;
    const { code, stdout } = await runCommand(['script', '-qec', command, '/dev/null'], { cwd: dir, env: { CI: '' } });
    expect(code, stdout).toBe(0);
    const drawn = stdout
      .split(/\r|\n|\x1b\[1G/)
      .map((line) => line.replace(CONTROL, ''))
      .filter((line) => / \d+\/1000 ?$/.test(line));
    expect(drawn.at(-1), stdout).toMatch(/^Loading .*\] 1000\/1000 ?$/);
    for (const line of drawn) expect(line.length, line).toBeLessThanOrEqual(50);
    expect(stdout).toContain(RESULT);
  });
});
