/**
 * Reads during exports: whether running exports stall the requests a server answers meanwhile.
 * Our Node adapter serves a copy of the export data (people only) over HTTP; a load generator in
 * its own process (bench/servers/read-load.ts, on the other core where pinning works) walks people
 * pages over a few keep-alive connections, first with the server otherwise idle, then while three
 * exports of every person run to completion. Target: no page waits more than 50 ms meanwhile.
 */
import { QUIET } from '../../scripts/progress.ts';
import { servedExportCopy } from '../data.ts';
import { target, type CaseResult, type SuiteResult } from '../results.ts';
import { canPin, runLoadScript, runtimeCommand, startServer, stopAll, type ChildServer } from '../servers/control.ts';
import type { PhaseFigures, ReadLoadRequest, ReadLoadResult } from '../servers/read-load.ts';
import type { SuiteOptions } from './suite.ts';

const WAIT_BOUND_MS = 50;
const FULL = { people: 100_000, connections: 4, idleSeconds: 10, warmupSeconds: 2, exports: 3, pollMs: 250, timeoutSeconds: 900 };
/** The export suite's tiny database, so a smoke run builds one database for both. */
const TINY = { people: 5_000, connections: 2, idleSeconds: 1, warmupSeconds: 0, exports: 3, pollMs: 50, timeoutSeconds: 60 };

/** A phase as a case of the report; the slowest page rides in `params.maxMs`. */
function phaseCase(name: string, role: CaseResult['role'], phase: PhaseFigures, params: CaseResult['params']): CaseResult {
  return { name, role, medianMs: phase.p50Ms, p99Ms: phase.p99Ms, perSecond: phase.requests / phase.seconds, unit: 'req/s', samples: phase.requests, params: { ...params, maxMs: Number(phase.maxMs.toFixed(2)) } };
}

export async function readsDuringExportsSuite(options: SuiteOptions): Promise<SuiteResult> {
  const { people, connections, exports, ...load } = options.tiny ? TINY : FULL;
  const progress = options.progress ?? QUIET;
  const served = await servedExportCopy({ seed: options.seed, people, cacheDir: options.cacheDir }, 'reads during exports');
  let server: ChildServer | undefined;
  try {
    server = await startServer('node adapter', runtimeCommand('node', 'bench/servers/api.ts').concat(served.db));
    progress.start(1);
    const request: ReadLoadRequest = { url: server.url, key: served.key, connections, limit: 100, walkPages: 20, exports, ...load };
    const result = await runLoadScript<ReadLoadResult>('read-load.ts', request);
    progress.step();
    if (result.rows.some((n) => n !== people)) throw new Error(`the exports wrote ${result.rows.join(', ')} rows, not ${people} each`);
    const size = people.toLocaleString('en');
    const params = { people, connections, exports };
    const idleName = `people pages, server otherwise idle (${size} people, ${connections} connections)`;
    const idle = phaseCase(idleName, 'floor', result.idle, params);
    const during = phaseCase(`people pages during ${exports} exports of ${size} people (${result.exportSeconds.toFixed(1)} s)`, 'ours', result.duringExports, { ...params, floor: idleName });
    return {
      suite: 'reads-during-exports',
      title: `Reads during exports: people pages over HTTP while ${exports} exports run`,
      cases: [idle, during],
      targets: [target(`no page waits more than ${WAIT_BOUND_MS} ms during ${exports} exports of ${size} people (slowest page)`, result.duringExports.maxMs, WAIT_BOUND_MS, 'ms', 1, 'at-most')],
      ...(canPin() ? {} : { skipped: ['core pinning: taskset or a second core missing, so server and load generator share the cores'] }),
    };
  } finally {
    await stopAll([server]);
    served.remove();
  }
}
