/**
 * The load of the "reads during exports" case, run in its own process (pinned to the load core):
 * a closed loop of people pages over keep-alive connections, each connection walking the pages by
 * their cursors. It measures the pages first with the server otherwise idle, then while exports it
 * starts itself run to completion, and prints one JSON line.
 *
 *   node --import tsx bench/servers/read-load.ts '{"url":"http://127.0.0.1:8787","key":"vi_live_…","connections":4,…}'
 */
import { Agent, request } from 'node:http';
import { percentiles } from '../results.ts';

/** What the suite asks of one run. */
export interface ReadLoadRequest {
  /** The server's base URL. */
  url: string;
  key: string;
  connections: number;
  /** People per page. */
  limit: number;
  /** Pages a connection walks before it starts again from the first. */
  walkPages: number;
  warmupSeconds: number;
  idleSeconds: number;
  /** Exports started at once when the second phase begins. */
  exports: number;
  /** How often the export jobs are polled (these polls are not measured). */
  pollMs: number;
  /** Give up when the exports have not completed by then. */
  timeoutSeconds: number;
}

/** Latency of the pages of one phase, in milliseconds. */
export interface PhaseFigures {
  requests: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What one run measured. */
export interface ReadLoadResult {
  idle: PhaseFigures;
  duringExports: PhaseFigures;
  /** From the first export's start to the last one's completion. */
  exportSeconds: number;
  /** Each export's rowCount. */
  rows: number[];
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request; the status and body text. */
function send(url: string, key: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { 'x-api-key': key } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs the page loop on every connection until `stop` resolves; the latency of each page. */
async function pages(load: ReadLoadRequest, stop: Promise<void>): Promise<{ latencies: number[]; seconds: number }> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const latencies: number[] = [];
  const started = performance.now();
  const loop = async () => {
    let cursor: string | undefined;
    let depth = 0;
    while (!stopped) {
      const path = `/v1/people?limit=${load.limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const t = performance.now();
      const { status, body } = await send(load.url + path, load.key);
      const took = performance.now() - t;
      latencies.push(took);
      if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${body.slice(0, 200)}`);
      cursor = (JSON.parse(body) as { pagination: { nextCursor?: string } }).pagination.nextCursor;
      if (!cursor || ++depth >= load.walkPages) [cursor, depth] = [undefined, 0];
    }
  };
  await Promise.all(Array.from({ length: load.connections }, loop));
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

const after = (seconds: number) => new Promise<void>((r) => setTimeout(r, seconds * 1000));

function figures({ latencies, seconds }: { latencies: number[]; seconds: number }): PhaseFigures {
  const { medianMs, p99Ms } = percentiles(latencies);
  return { requests: latencies.length, seconds, p50Ms: medianMs, p99Ms, maxMs: latencies.reduce((a, b) => Math.max(a, b), 0) };
}

/** Starts the exports, polls them to completion; their row counts and how long they took. */
async function runExports(load: ReadLoadRequest): Promise<{ rows: number[]; seconds: number }> {
  const started = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < load.exports; i++) {
    const { status, body } = await send(`${load.url}/v1/exports`, load.key, 'POST');
    if (status !== 202) throw new Error(`POST /v1/exports answered ${status}: ${body.slice(0, 200)}`);
    ids.push((JSON.parse(body) as { jobId: string }).jobId);
  }
  const rows: number[] = [];
  for (const id of ids) {
    for (;;) {
      const { body } = await send(`${load.url}/v1/exports/${id}`, load.key);
      const job = JSON.parse(body) as { status: string; rowCount?: number; error?: string };
      if (job.status === 'complete') {
        rows.push(job.rowCount!);
        break;
      }
      if (job.status !== 'processing') throw new Error(`export ${id} ended ${job.status}: ${job.error}`);
      if (performance.now() - started > load.timeoutSeconds * 1000) throw new Error(`exports still running after ${load.timeoutSeconds} s`);
      await after(load.pollMs / 1000);
    }
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
}

/** Warm-up, the idle phase, then the phase during exports. */
export async function readLoad(load: ReadLoadRequest): Promise<ReadLoadResult> {
  if (load.warmupSeconds > 0) await pages(load, after(load.warmupSeconds));
  const idle = figures(await pages(load, after(load.idleSeconds)));
  let exportsDone!: () => void;
  const done = new Promise<void>((r) => (exportsDone = r));
  const reads = pages(load, done);
  const exports = await runExports(load).finally(() => exportsDone());
  return { idle, duringExports: figures(await reads), exportSeconds: exports.seconds, rows: exports.rows };
}

if (process.argv[2]) {
  const result = await readLoad(JSON.parse(process.argv[2]) as ReadLoadRequest);
  console.log(JSON.stringify(result));
  agent.destroy();
}
