/**
 * The load generator, run in its own process (pinned to a core of its own where possible):
 * autocannon against one URL, a warm-up first, then one measured run. Prints one JSON line.
 *
 *   node --import tsx bench/servers/load.ts '{"url":"…","connections":10,"seconds":5,"warmupSeconds":1,"headers":{}}'
 */
import autocannon from 'autocannon';
import { percentiles } from '../results.ts';

/** What a caller asks of one load run. */
export interface LoadRequest {
  /** One URL, or several: autocannon then spreads its connections over them, round robin. */
  url: string | string[];
  connections: number;
  seconds: number;
  /** Stop after this many requests instead of after `seconds`: a smoke run then always has samples, however busy the machine. */
  amount?: number;
  warmupSeconds: number;
  headers?: Record<string, string>;
}

/** What one load run measured. */
export interface LoadResult {
  /** Responses received during the measured run (any status). */
  requests: number;
  /** Responses received during the warm-up before it (a server's CPU time covers both). */
  warmupRequests: number;
  /** Responses that were not 2xx, and connection errors or timeouts: a valid run has none. */
  non2xx: number;
  errors: number;
  seconds: number;
  perSecond: number;
  /** Latency percentiles in milliseconds, from every response's own time (autocannon's histogram keeps whole ms). */
  p50Ms: number;
  p99Ms: number;
}

/** One autocannon run; `latencies` receives each 2xx response's time in milliseconds. */
function run(request: LoadRequest, seconds: number, latencies?: number[], amount?: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    // autocannon takes an array of URLs; its types only say string.
    const options = { url: request.url as string, connections: request.connections, duration: seconds, headers: request.headers ?? {}, ...(amount ? { amount } : {}) };
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    if (latencies) instance.on('response', (_client, status, _bytes, ms) => void (status < 300 && latencies.push(ms)));
  });
}

if (process.argv[2]) {
  const request = JSON.parse(process.argv[2]) as LoadRequest;
  const warmup = request.warmupSeconds > 0 ? await run(request, request.warmupSeconds) : undefined;
  const latencies: number[] = [];
  const r = await run(request, request.seconds, latencies, request.amount);
  const { medianMs, p99Ms } = percentiles(latencies);
  const result: LoadResult = {
    requests: r.requests.total,
    warmupRequests: warmup?.requests.total ?? 0,
    non2xx: r.non2xx,
    errors: r.errors,
    seconds: r.duration,
    perSecond: r.requests.total / r.duration,
    p50Ms: medianMs,
    p99Ms,
  };
  console.log(JSON.stringify(result));
}
