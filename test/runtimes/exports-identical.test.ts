import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, RUNTIMES, runtimeCommand } from '../../scripts/runtime-command.ts';

/**
 * The same exports under Node, Bun and Deno (each with its own SQLite driver), collected and
 * written in small steps and interrupted by restarts (test/runtimes/runtime-export.ts), must give
 * the same files byte for byte, with the same rowCount and partial.
 */
const dir = mkdtempSync(join(tmpdir(), 'vi-export-runtimes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The exports' outcome under one runtime. */
function exportsUnder(runtime: (typeof RUNTIMES)[number]) {
  const [command, ...args] = runtimeCommand(runtime, 'test/runtimes/runtime-export.ts');
  const out = execFileSync(command!, [...args, join(dir, `${runtime}.sqlite`)], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  return JSON.parse(out.trim().split('\n').pop()!) as { runtime: string; results: { rowCount: number; partial: boolean; sha256: string; bytes: number }[] };
}

describe('exports on every runtime', () => {
  it('are identical on Node, Bun and Deno, however often they are interrupted', () => {
    const [node, ...others] = RUNTIMES.map(exportsUnder);
    // Four exports, each interrupted early and late: the two runs of each give one file.
    expect(node!.results).toHaveLength(8);
    for (let i = 0; i < 8; i += 2) expect(node!.results[i + 1]).toEqual(node!.results[i]);
    expect(node!.results.some((r) => r.partial)).toBe(true);
    expect(node!.results.some((r) => !r.partial && r.rowCount > 0)).toBe(true);
    for (const other of others) expect({ runtime: other.runtime, results: other.results }).toEqual({ runtime: other.runtime, results: node!.results });
  }, 300_000);
});
