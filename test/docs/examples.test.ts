import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli/bin.ts';
import { startServe, type ServeProcess } from '../support/processes.ts';
import { shellBlocks } from './markdown-blocks.ts';

/** The pages whose shell examples a reader runs: the README and every page of docs/ but the spec's copy. */
const PAGES = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md') && f !== 'visitor-intelligence-api.md').sort().map((f) => `docs/${f}`)];

/**
 * How many blocks each page marks `<!-- not run: … -->`. A new marker must be counted here too,
 * so that no example that fails is quietly marked instead of fixed.
 */
const NOT_RUN: Record<string, number> = {
  'README.md': 4,
  'docs/architecture.md': 0,
  'docs/benchmarks.md': 2,
  'docs/conformance.md': 2,
  'docs/console.md': 0,
  'docs/embedding.md': 0,
  'docs/exports.md': 0,
  'docs/implementation-choices.md': 0,
  'docs/loading-data.md': 0,
  'docs/postgresql.md': 2,
  'docs/runtimes.md': 1,
  'docs/sandbox.md': 2,
  'docs/webhooks.md': 1,
};

describe('the shell examples of the README and docs/', () => {
  it('count their not-run markers as listed here', () => {
    const counted = Object.fromEntries(PAGES.map((page) => [page, shellBlocks(page).filter((b) => b.notRun !== undefined).length]));
    expect(counted).toEqual(NOT_RUN);
    for (const page of PAGES) for (const block of shellBlocks(page)) if (block.notRun !== undefined) expect(block.notRun, `${page}:${block.line}`).not.toBe('');
  });

  // A reader's folder after `npm start -- --keys-out keys.json`: the server's database under
  // data/, its keys.json, the examples and the package's command, as npx finds an installed one.
  const dir = mkdtempSync(join(tmpdir(), 'vi-docs-'));
  let server: ServeProcess;
  beforeAll(async () => {
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    symlinkSync(resolve('examples'), join(dir, 'examples'));
    symlinkSync(resolve('.'), join(dir, 'node_modules/visitor-intelligence'));
    // A shim as npm writes where it cannot link: the build's file is not executable until npm installs it.
    writeFileSync(join(dir, 'node_modules/.bin/visitor-intelligence'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(resolve('dist/scripts/cli.js'))} "$@"\n`, { mode: 0o755 });
    // --faults for the fault injection examples, which say the reader starts the server with it.
    server = await startServe('docs', ['--db', join(dir, 'data/demo.sqlite'), '--people', '500', '--faults'], { dir });
    symlinkSync(join(dir, 'docs.keys.json'), join(dir, 'keys.json'));
  }, 120_000);
  afterAll(async () => {
    await server?.process.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  for (const page of PAGES) {
    it(`run as written in ${page}, each exiting 0 with the output it declares`, async () => {
      let setup = '';
      for (const block of shellBlocks(page)) {
        if (block.notRun !== undefined) continue;
        // curl exits 0 on an error status; here an answer of 400 or more fails the block, unless it says it shows errors.
        const strict = block.showsErrors ? '' : 'curl() { command curl --fail-with-body "$@"; }\n';
        const script = `set -euo pipefail\n${strict}${setup}\n${block.code}\n`;
        const ran = await runCommand(['bash', '-c', script], { cwd: dir, timeoutMs: 60_000 });
        const where = `${page}:${block.line}\n${block.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`;
        expect(ran.code, where).toBe(0);
        for (const text of block.output) expect(ran.stdout, where).toContain(text);
        if (block.setup) setup += `${block.code}\n`;
      }
    }, 120_000);
  }
});
