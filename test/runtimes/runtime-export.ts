/**
 * Runs exports under whichever runtime runs this file and prints what they produced as one JSON
 * line: `<runtime> test/exports/runtime-export.ts DB_FILE`. The demo account is seeded into a
 * fresh database, then each export runs in small steps (several collection runs to merge) and is
 * interrupted once mid-collection and once mid-writing by closing and reopening the API.
 */
import { ManualClock } from '../../core/index.ts';
import { loadRuntime } from '../../scripts/runtime.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';

const ANCHOR = Date.UTC(2026, 10, 20, 12);
const FILTERS = [{}, { sortBy: 'name', sortOrder: 'asc' }, { sortBy: 'company', sortOrder: 'desc', timeframe: '30d' }, { sortBy: 'email', sortOrder: 'asc', isHotLead: true }];
const STEPS = { collectPks: 37, batchRows: 9, chunkChars: 2000, rowCap: 250 };

const database = process.argv[process.argv.length - 1]!;
const runtime = await loadRuntime();
const open = (pace?: () => Promise<void>) => runtime.createApi({ database, clock: new ManualClock(ANCHOR), exports: { ...STEPS, ...(pace ? { pace } : {}) } });

let api = await open();
await api.admin.createAccount({ id: 'acc_demo', name: 'Demo' });
await seedDemo(api.admin, 'acc_demo', { seed: 5, people: 400, anchor: ANCHOR });
const { key } = await api.admin.issueAccountKey('acc_demo');
await api.close();

const call = (path: string, init?: RequestInit) => api.fetch(new Request(`http://runtime.test${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init?.headers } }));
const results: { rowCount: number; partial: boolean; sha256: string; bytes: number }[] = [];
for (const filters of FILTERS) {
  // Hold the job after `stop` steps, close the API there, and let a new one finish it.
  for (const stop of [3, 20]) {
    let steps = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    api = await open(() => (++steps > stop ? held : Promise.resolve()));
    const { jobId } = (await (await call('/v1/exports', { method: 'POST', body: JSON.stringify(filters) })).json()) as { jobId: string };
    while (steps <= stop) await new Promise((r) => setTimeout(r, 1));
    const closing = api.close();
    release();
    await closing;
    api = await open();
    await api.exportsIdle();
    const job = (await (await call(`/v1/exports/${jobId}`)).json()) as { status: string; rowCount: number; partial: boolean; downloadUrl: string };
    if (job.status !== 'complete') throw new Error(`export ${JSON.stringify(filters)} ended ${JSON.stringify(job)}`);
    const file = new Uint8Array(await (await api.fetch(new Request(job.downloadUrl))).arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', file));
    results.push({ rowCount: job.rowCount, partial: job.partial, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''), bytes: file.length });
    await api.close();
  }
}
console.log(JSON.stringify({ runtime: runtime.name, results }));
