import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/** What `npm pack` would put in the package (after `npm run build`). */
function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((f) => f.path));
}

describe('the npm package', () => {
  let files: Set<string>;
  beforeAll(() => {
    expect(existsSync('dist/scripts/cli.js'), 'run npm run build first').toBe(true);
    files = packedFiles();
  }, 60_000);

  it('ships the licence, the spec and the sample files the docs link to, and the bin with its shebang', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.license).toBe('MIT');
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the visitor-intelligence authors\n/);
    for (const path of ['LICENSE', 'README.md', 'CONTRIBUTING.md', 'docs/visitor-intelligence-api.md', 'examples/people.csv', 'examples/events.ndjson', pkg.bin['visitor-intelligence']]) expect(files, path).toContain(path);
    expect(readFileSync(pkg.bin['visitor-intelligence'], 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('ships the source of every source map, so the maps resolve', () => {
    const maps = [...files].filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const path = normalize(join(dirname(map), source));
        if (!files.has(path)) missing.push(`${map} → ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships no tests, benchmarks or local data', () => {
    expect([...files].filter((f) => /^(test|bench|data)\/|\.test\.|\.sqlite$|(^|\/)keys\.json$/.test(f))).toEqual([]);
  });
});
