/**
 * `npm run bench:reads`: the "reads during exports" suite of `npm run bench`
 * (bench/suites/reads-during-exports.ts) on its own, at the size and load asked for: people pages
 * over HTTP with the server otherwise idle, then while exports of every person run.
 *
 *   npm run bench:reads -- --people 100000 --connections 4 --idle-seconds 10 --exports 3
 *
 * The database is the export suite's, built once per seed and size under bench/.cache (or --cache).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCommandLine } from './command-line.ts';
import { formatSuite } from './report/table.ts';
import { positiveInt } from './run.ts';
import { readsDuringExportsSuite } from './suites/reads-during-exports.ts';

/** The command line: flags → the suite, then its table on stdout. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      people: { type: 'string', default: '100000' },
      connections: { type: 'string', default: '4' },
      'idle-seconds': { type: 'string', default: '10' },
      exports: { type: 'string', default: '3' },
      seed: { type: 'string', default: '42' },
      cache: { type: 'string' },
    },
  });
  const suite = await readsDuringExportsSuite({
    tiny: false,
    seed: positiveInt('seed', values.seed!),
    people: positiveInt('people', values.people!),
    connections: positiveInt('connections', values.connections!),
    idleSeconds: positiveInt('idle-seconds', values['idle-seconds']!),
    exports: positiveInt('exports', values.exports!),
    cacheDir: values.cache === undefined ? undefined : resolve(values.cache),
  });
  process.stdout.write(`\n${formatSuite(suite)}\n${suite.cases.map((c) => `  slowest page ${c.params?.maxMs} ms (the load generator stalled ${c.params?.maxClientStallMs} ms of it, ${c.params?.maxClientRunQueueMs} ms waiting for a CPU; its GC ${c.params?.maxClientGcMs} ms): ${c.name}`).join('\n')}\n`);
}

runCommandLine('bench:reads', main);
