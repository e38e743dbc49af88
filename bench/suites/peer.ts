/**
 * Peer suite: json-server (npm, 0.17) serving the same people as a JSON file, sorted by lastSeen
 * and paged 100 at a time (`_sort`, `_order`, `_page`, `_limit`), against our `/v1/people?limit=100`
 * with cursor paging through the Node adapter. Requests per second for the first page and a page
 * in the middle, autocannon in its own process, servers and load generator on different cores;
 * a bare node:http server answering our page's body from memory, the most HTTP carries here; and
 * the page answered in-process with no HTTP, the most the page's own work allows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaseResult, SuiteResult, TargetResult } from '../results.ts';
import { target } from '../results.ts';
import { canPin, inProcessTest, loadTest, ROOT, runtimeCommand, startServer, stopAll, type ChildServer } from '../servers/control.ts';
import type { InProcessResult } from '../servers/in-process.ts';
import type { LoadResult } from '../servers/load.ts';
import { ceilingNote, DEFAULT_LOAD, foldInProcess, foldRounds, startBare, TINY_LOAD, workNote } from './http.ts';
import { cursorParam } from './paging-api.ts';
import type { SuiteOptions } from './suite.ts';

interface PersonPage {
  data: { id: string; lastSeen: string }[];
  pagination: { nextCursor?: string };
}

/** Walks every page of our people list; returns the people and the cursor that reaches each page (page 1 has none). */
async function walkPeople(server: ChildServer, accountKey: string): Promise<{ people: unknown[]; cursors: (string | undefined)[] }> {
  const people: unknown[] = [];
  const cursors: (string | undefined)[] = [undefined];
  for (let cursor: string | undefined; ; ) {
    const res = await fetch(`${server.url}/v1/people?limit=100${cursorParam(cursor)}`, { headers: { 'x-api-key': accountKey } });
    if (res.status !== 200) throw new Error(`GET /v1/people answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as PersonPage;
    people.push(...page.data);
    cursor = page.pagination.nextCursor;
    if (!cursor) return { people, cursors };
    cursors.push(cursor);
  }
}

/** The two servers must serve the same rows on a page (compared by lastSeen, as ties may order differently); our page's body. */
async function samePage(ours: string, peer: string, accountKey: string): Promise<string> {
  const [body, b] = await Promise.all([
    fetch(ours, { headers: { 'x-api-key': accountKey } }).then((r) => r.text()),
    fetch(peer).then((r) => r.json() as Promise<PersonPage['data']>),
  ]);
  const a = JSON.parse(body) as PersonPage;
  const seen = (rows: { lastSeen: string }[]) => rows.map((r) => r.lastSeen).join();
  if (a.data.length === 0 || seen(a.data) !== seen(b)) throw new Error(`our people page and json-server's differ: ${ours} vs ${peer}`);
  return body;
}

export async function peerSuite(options: SuiteOptions): Promise<SuiteResult> {
  const plan = options.tiny ? TINY_LOAD : DEFAULT_LOAD;
  const { path: db, accountKey } = options.data;
  const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules/json-server/package.json'), 'utf8')) as { version: string }).version;
  const dir = mkdtempSync(join(tmpdir(), 'vi-bench-peer-'));
  const cases: CaseResult[] = [];
  const targets: TargetResult[] = [];
  let ours: ChildServer | undefined;
  let peer: ChildServer | undefined;
  try {
    ours = await startServer('node adapter', runtimeCommand('node', 'bench/servers/api.ts').concat(db));
    // The same people, read through our API, as json-server's database file.
    const { people, cursors } = await walkPeople(ours, accountKey);
    const file = join(dir, 'people.json');
    writeFileSync(file, JSON.stringify({ people }));
    peer = await startServer(`json-server ${version}`, runtimeCommand('node', 'bench/servers/json-server.ts').concat(file));

    const pages = Math.ceil(people.length / 100);
    const mid = Math.floor(pages / 2) + 1;
    const load = { connections: plan.connections, seconds: plan.seconds, amount: plan.amount, warmupSeconds: plan.warmupSeconds };
    for (const page of pages >= 3 ? [1, mid] : [1]) {
      const cursor = cursors[page - 1];
      const oursPath = `/v1/people?limit=100${cursorParam(cursor)}`;
      const oursUrl = ours.url + oursPath;
      const peerUrl = `${peer.url}/people?_sort=lastSeen&_order=desc&_page=${page}&_limit=100`;
      const bare = await startBare('node', await samePage(oursUrl, peerUrl, accountKey));
      const runs: Record<'ours' | 'peer' | 'ceiling', LoadResult[]> = { ours: [], peer: [], ceiling: [] };
      const inProcess: InProcessResult[] = [];
      try {
        for (let round = 0; round < plan.rounds; round++) {
          runs.peer.push(await loadTest({ ...load, url: peerUrl }));
          runs.ours.push(await loadTest({ ...load, url: oursUrl, headers: { 'x-api-key': accountKey } }));
          runs.ceiling.push(await loadTest({ ...load, url: bare.server.url + '/v1/people' }));
          inProcess.push(await inProcessTest('node', db, { ...load, path: oursPath, key: accountKey }));
        }
      } finally {
        await bare.stop();
      }
      const params = { page, people: people.length, connections: plan.connections };
      const mine = foldRounds(`people page ${page} of ${pages}, 100 by lastSeen (ours, Node adapter, cursor)`, 'ours', runs.ours, params);
      const theirs = foldRounds(`people page ${page} of ${pages}, 100 by lastSeen (json-server ${version}, _page)`, 'peer', runs.peer, params);
      const ceiling = foldRounds(`people page ${page} of ${pages}, our body from memory (bare node:http server: the ceiling)`, 'floor', runs.ceiling, { ...params, series: 'ceiling' });
      const work = foldInProcess(`people page ${page} of ${pages}, ours in-process (Node adapter, no HTTP: the work's own limit)`, inProcess, { ...params, series: 'in-process' });
      cases.push(mine, theirs, ceiling, work);
      targets.push(
        target(
          `people page ${page === 1 ? '1' : `${page} (mid)`} sorted by lastSeen: ≥ 20× json-server's req/s`,
          mine.perSecond!,
          theirs.perSecond!,
          20,
          'at-least',
          `${mine.perSecond!.toFixed(0)} vs ${theirs.perSecond!.toFixed(0)} req/s. json-server sorts all ${people.length} people in memory on every request, cheap at this size (its cost grows as n log n, ours stays one keyset range scan). Our page joins each person's stored JSON text in one keyset range scan, behind auth, the rate limit and a signed cursor, and the Node adapter writes the core's Reply with no Fetch objects. ${ceilingNote("20× json-server's rate", 20 * theirs.perSecond!, ceiling, 'node:http server')}${workNote("20× json-server's rate", 20 * theirs.perSecond!, work, 'node', canPin() ? ceiling : undefined)}json-server answers from memory; every page of ours is read from the database.`,
        ),
      );
    }
  } finally {
    await stopAll([ours, peer]);
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    suite: 'peer',
    title: `Peer: people paged 100 at a time by lastSeen, ours against json-server ${version}`,
    cases,
    targets,
    ...(canPin() ? {} : { skipped: ['core pinning: taskset or a second core missing, so servers and load generator share the cores'] }),
  };
}
