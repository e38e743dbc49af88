/**
 * Peer suite: json-server (npm, 0.17) serving the same people as a JSON file, sorted by lastSeen
 * and paged 100 at a time (`_sort`, `_order`, `_page`, `_limit`), against our `/v1/people?limit=100`
 * with cursor paging through the Node adapter, on the export data's 100,000 people. Requests per
 * second for the first page and a page in the middle, autocannon in its own process, servers and
 * load generator on different cores where `taskset` allows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servedExportCopy } from '../data.ts';
import { QUIET } from '../../scripts/progress.ts';
import { rateTarget, type CaseResult, type SuiteResult, type TargetResult } from '../results.ts';
import { canPin, loadTest, ROOT, runtimeCommand, startServer, stopAll, type ChildServer } from '../servers/control.ts';
import type { LoadResult } from '../servers/load.ts';
import { DEFAULT_LOAD, foldRounds, TINY_LOAD } from './http.ts';
import { cursorParam } from './paging-api.ts';
import type { SuiteOptions } from './suite.ts';

/** The people json-server holds; the export suite's smallest database, so a run builds it once. */
const PEOPLE = { tiny: 5_000, full: 100_000 };
/** Our req/s against json-server's, judged at 100,000 people or more. */
const PEER_BOUND = 100;
const JUDGED_FROM = 100_000;

interface PersonPage {
  data: { id: string; lastSeen: string }[];
  pagination: { nextCursor?: string };
}

/** Walks every page of our people list; returns the people and the cursor that reaches each page (page 1 has none). */
async function walkPeople(server: ChildServer, key: string): Promise<{ people: unknown[]; cursors: (string | undefined)[] }> {
  const people: unknown[] = [];
  const cursors: (string | undefined)[] = [undefined];
  for (let cursor: string | undefined; ; ) {
    const res = await fetch(`${server.url}/v1/people?limit=100${cursorParam(cursor)}`, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`GET /v1/people answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as PersonPage;
    people.push(...page.data);
    cursor = page.pagination.nextCursor;
    if (!cursor) return { people, cursors };
    cursors.push(cursor);
  }
}

/** The two servers must serve the same rows on a page (compared by lastSeen, as ties may order differently). */
async function samePage(ours: string, peer: string, key: string): Promise<void> {
  const [a, b] = await Promise.all([fetch(ours, { headers: { 'x-api-key': key } }).then((r) => r.json() as Promise<PersonPage>), fetch(peer).then((r) => r.json() as Promise<PersonPage['data']>)]);
  const seen = (rows: { lastSeen: string }[]) => rows.map((r) => r.lastSeen).join();
  if (a.data.length === 0 || seen(a.data) !== seen(b)) throw new Error(`our people page and json-server's differ: ${ours} vs ${peer}`);
}

export async function peerSuite(options: SuiteOptions): Promise<SuiteResult> {
  const plan = options.tiny ? TINY_LOAD : DEFAULT_LOAD;
  const progress = options.progress ?? QUIET;
  const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules/json-server/package.json'), 'utf8')) as { version: string }).version;
  const served = await servedExportCopy({ seed: options.seed, people: options.tiny ? PEOPLE.tiny : PEOPLE.full, cacheDir: options.cacheDir }, 'peer');
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-peer-'));
  const cases: CaseResult[] = [];
  let ours: ChildServer | undefined;
  let peer: ChildServer | undefined;
  try {
    ours = await startServer('node adapter', runtimeCommand('node', 'bench/servers/api.ts').concat(served.db));
    // The same people, read through our API, as json-server's database file.
    const { people, cursors } = await walkPeople(ours, served.key);
    const file = join(dir, 'people.json');
    writeFileSync(file, JSON.stringify({ people }));
    peer = await startServer(`json-server ${version}`, runtimeCommand('node', 'bench/servers/json-server.ts').concat(file));

    const pages = Math.ceil(people.length / 100);
    const chosen = pages >= 3 ? [1, Math.floor(pages / 2) + 1] : [1];
    const load = { connections: plan.connections, seconds: plan.seconds, amount: plan.amount, warmupSeconds: plan.warmupSeconds };
    progress.start(chosen.length * plan.rounds * 2);
    for (const page of chosen) {
      const oursUrl = `${ours.url}/v1/people?limit=100${cursorParam(cursors[page - 1])}`;
      const peerUrl = `${peer.url}/people?_sort=lastSeen&_order=desc&_page=${page}&_limit=100`;
      await samePage(oursUrl, peerUrl, served.key);
      const runs: Record<'ours' | 'peer', LoadResult[]> = { ours: [], peer: [] };
      for (let round = 0; round < plan.rounds; round++) {
        runs.peer.push(await loadTest({ ...load, url: peerUrl }));
        progress.step(`json-server, page ${page}`);
        runs.ours.push(await loadTest({ ...load, url: oursUrl, headers: { 'x-api-key': served.key } }));
        progress.step(`ours, page ${page}`);
      }
      const params = { page, people: people.length, connections: plan.connections };
      cases.push(
        foldRounds(`people page ${page} of ${pages}, 100 by lastSeen (ours, Node adapter, cursor)`, 'ours', runs.ours, params),
        foldRounds(`people page ${page} of ${pages}, 100 by lastSeen (json-server ${version}, _page)`, 'peer', runs.peer, params),
      );
    }
  } finally {
    await stopAll([ours, peer]);
    rmSync(dir, { recursive: true, force: true });
    served.remove();
  }
  return {
    suite: 'peer',
    title: `Peer: people paged 100 at a time by lastSeen, ours against json-server ${version}`,
    cases,
    targets: peerTargets(cases),
    ...(canPin() ? {} : { skipped: ['core pinning: taskset or a second core missing, so servers and load generator share the cores'] }),
  };
}

/** Every page measured ≥ 100× json-server's req/s, at 100,000 people or more (json-server sorts them all on every request). */
export function peerTargets(cases: CaseResult[]): TargetResult[] {
  return cases
    .filter((c) => c.role === 'ours' && Number(c.params?.people) >= JUDGED_FROM)
    .map((ours) => {
      const theirs = cases.find((c) => c.role === 'peer' && c.params?.page === ours.params!.page)!;
      const people = Number(ours.params!.people).toLocaleString('en');
      return rateTarget(`people page ${ours.params!.page} of ${people} sorted by lastSeen ≥ ${PEER_BOUND}× json-server's req/s`, ours, theirs, PEER_BOUND);
    });
}
