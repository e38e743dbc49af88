import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, startBin, stop } from './bin.ts';

/** Where each column of a printed table starts, read from the runs of two or more spaces between cells. */
function columnStarts(line: string): number[] {
  const starts = [line.search(/\S/)];
  for (const gap of line.trimStart().matchAll(/ {2,}(?=\S)/g)) starts.push(starts[0]! + gap.index + gap[0].length);
  return starts;
}

describe('visitor-intelligence --version (built bin)', () => {
  it("prints package.json's version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const { code, stdout } = await runBin([flag]);
      expect(code, flag).toBe(0);
      expect(stdout.trim(), flag).toBe(version);
    }
  });
});

describe('the key tables serve and keys list print (built bin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-cli-tables-'));
  let server: Awaited<ReturnType<typeof startBin>>;
  let keys: { scopedKeys: { domain: string; clientRef: string | null; key: string }[] };

  beforeAll(async () => {
    server = await startBin(['serve', '--port', '0', '--db', 'demo.sqlite', '--people', '20', '--keys-out', 'keys.json'], /Keys written to/, { cwd: dir });
    keys = JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8'));
  }, 120_000);
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('serve lines every scoped key up under the others, the longest domain and clientRef included', () => {
    const lines = server.output().split('\n');
    const rows = keys.scopedKeys.map(({ key }) => lines.find((line) => line.endsWith(key))!);
    expect(rows.every(Boolean)).toBe(true);
    expect(keys.scopedKeys.some(({ clientRef }) => (clientRef ?? '').length >= 14)).toBe(true);
    const starts = rows.map(columnStarts);
    for (const [i, row] of rows.entries()) {
      expect(starts[i], row).toEqual(starts[0]);
      expect(row.slice(starts[0]![1]).startsWith(keys.scopedKeys[i]!.clientRef ?? '-'), row).toBe(true);
    }
  });

  it('keys list lines its columns up the same way, a label after the longest clientRef included', async () => {
    const run = (...args: string[]) => runBin(args, { cwd: dir });
    const listed = JSON.parse((await run('keys', 'list', '--db', 'demo.sqlite', '--json')).stdout) as { keyId: string; domain: string | null }[];
    const longest = keys.scopedKeys.reduce((a, b) => ((b.clientRef ?? '').length > (a.clientRef ?? '').length ? b : a));
    const old = listed.find((k) => k.domain === longest.domain)!;
    expect((await run('keys', 'revoke', old.keyId, '--db', 'demo.sqlite')).code).toBe(0);
    expect((await run('keys', 'issue', '--domain', longest.domain, '--label', 'partner', '--db', 'demo.sqlite')).code).toBe(0);

    const { code, stdout } = await run('keys', 'list', '--db', 'demo.sqlite');
    expect(code).toBe(0);
    const rows = stdout.trimEnd().split('\n');
    expect(rows.length).toBe(keys.scopedKeys.length + 2);
    const labelled = rows.find((row) => row.endsWith('partner'))!;
    expect(columnStarts(labelled)).toHaveLength(5);
    const starts = rows.map(columnStarts);
    for (const [i, row] of rows.entries()) expect(starts[i]!.slice(0, 4), row).toEqual(starts[0]!.slice(0, 4));
    expect(columnStarts(labelled)[4]).toBeGreaterThan(labelled.indexOf(longest.clientRef!) + longest.clientRef!.length);
  });
});
