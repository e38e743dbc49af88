/**
 * The most a server process of this runtime could serve of one page here, whatever its HTTP
 * costs: the runtime's adapter in this process answering the page with requests in flight as
 * the load test keeps them, and no HTTP at all. One core runs a server's JavaScript, its SQLite
 * and its HTTP alike, so over HTTP the same process can only serve fewer. Prints one JSON line.
 *
 *   <runtime> bench/servers/in-process.ts DB '{"path":"/v1/people?limit=100","key":"…","connections":10,"seconds":5,"warmupSeconds":2}'
 */
import { loadRuntime } from '../../scripts/runtime.ts';
import { databaseArgument, UNLIMITED } from './api-options.ts';

/** What a caller asks of one in-process run. */
export interface InProcessRequest {
  /** Path and query of the page, the API key's page as a client would ask for it. */
  path: string;
  key: string;
  /** Requests in flight at once, as the load test's connections. */
  connections: number;
  seconds: number;
  /** Stop after this many requests instead (the tiny run). */
  amount?: number;
  warmupSeconds: number;
}

/** What one in-process run measured. */
export interface InProcessResult {
  requests: number;
  seconds: number;
  perSecond: number;
}

if (process.argv[3]) {
  const plan = JSON.parse(process.argv[3]) as InProcessRequest;
  const runtime = await loadRuntime();
  const api = await runtime.createApi({ database: databaseArgument(), rateLimits: UNLIMITED });
  // One GET Request serves every call: the core reads its URL and headers, never a body.
  const request = new Request(`http://127.0.0.1${plan.path}`, { headers: { 'x-api-key': plan.key } });
  // What each runtime's server asks of the core: Node's listener a Reply (no Fetch Response),
  // Bun's and Deno's the Response they write natively. The body is left to the server to write.
  const answer = runtime.name === 'node' ? async () => (await api.reply(request)).status : async () => (await api.fetch(request)).status;

  const run = async (seconds: number, amount?: number): Promise<{ requests: number; seconds: number }> => {
    const started = performance.now();
    const deadline = started + seconds * 1000;
    let requests = 0;
    const more = () => (amount === undefined ? performance.now() < deadline : requests < amount);
    const connection = async () => {
      while (more()) {
        requests++;
        const status = await answer();
        if (status !== 200) throw new Error(`GET ${plan.path} answered ${status} in-process`);
      }
    };
    await Promise.all(Array.from({ length: plan.connections }, connection));
    return { requests, seconds: (performance.now() - started) / 1000 };
  };

  if (plan.warmupSeconds > 0) await run(plan.warmupSeconds);
  const measured = await run(plan.seconds, plan.amount);
  const result: InProcessResult = { ...measured, perSecond: measured.requests / measured.seconds };
  console.log(JSON.stringify(result));
  await api.close();
  process.exit(0);
}
