import type { ErrorBody } from '../../core/index.ts';
import { parseCsv } from './csv.ts';

/** A parsed response. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Reads a raw Response (e.g. from a plain `fetch`) into a Reply, so {@link errorCode} can check it. */
export async function replyOf<T = any>(res: Response): Promise<Reply<T>> {
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** A small client over a target's `call`, sending the key it is given. */
export function clientFor(call: (path: string, init?: RequestInit) => Promise<Response>) {
  return {
    async get<T = any>(path: string, key?: string, headers: Record<string, string> = {}): Promise<Reply<T>> {
      return replyOf<T>(await call(path, { headers: key === undefined ? headers : { 'x-api-key': key, ...headers } }));
    },
    async send<T = any>(method: string, path: string, key?: string, body?: string, headers: Record<string, string> = {}): Promise<Reply<T>> {
      return replyOf<T>(await call(path, { method, body, headers: key === undefined ? headers : { 'x-api-key': key, ...headers } }));
    },
    /** Fetches a download link the way a browser would, with no key: its path and query, through this client's `call`. */
    download(url: string): Promise<Response> {
      const { pathname, search } = new URL(url);
      return call(pathname + search);
    },
    /** Follows nextCursor to the end and returns every row, failing on a loop. */
    async walk<T = any>(path: string, key: string, limit = 100): Promise<{ rows: T[]; pages: number }> {
      const rows: T[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const sep = path.includes('?') ? '&' : '?';
        const reply = await this.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
        if (reply.status !== 200) throw new Error(`page ${pages} of ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        rows.push(...reply.body.data);
        cursor = reply.body.pagination.nextCursor;
        if (++pages > 10_000) throw new Error('paging does not end');
      } while (cursor);
      return { rows, pages };
    },
  };
}

/** Asserts the shape of the error envelope and returns its code. */
export function errorCode(reply: Reply<ErrorBody>): string {
  const { error } = reply.body;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || error.status !== reply.status) {
    throw new Error(`not an error envelope for ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return error.code;
}

/** One export run to its end: the 202 that started it, the finished job as polled, and its file. */
export interface ExportRun {
  started: Reply;
  job: any;
  /** The download's response (its body already read into `text`). */
  file: Response;
  text: string;
  csv: Awaited<ReturnType<typeof parseCsv>>;
}

/**
 * Starts an export with `filters` as its JSON body (no body when undefined), waits for it, by
 * `options.idle` (e.g. `api.exportsIdle`) or by polling, downloads the file through the client
 * without a key and parses it. Fails unless the start answers 202 and the job completes.
 */
export async function runExport(
  client: ReturnType<typeof clientFor>,
  key: string,
  filters?: Record<string, unknown>,
  options: { idle?: () => Promise<void>; pollMs?: number; timeoutMs?: number } = {},
): Promise<ExportRun> {
  const started = filters === undefined ? await client.send('POST', '/v1/exports', key) : await client.send('POST', '/v1/exports', key, JSON.stringify(filters), { 'content-type': 'application/json' });
  if (started.status !== 202) throw new Error(`export ${JSON.stringify(filters)} answered ${started.status}: ${JSON.stringify(started.body)}`);
  await options.idle?.();
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let job: any;
  for (;;) {
    const poll = await client.get(started.body.statusUrl, key);
    if (poll.status !== 200) throw new Error(`polling ${started.body.statusUrl} answered ${poll.status}: ${JSON.stringify(poll.body)}`);
    job = poll.body;
    if (job.status !== 'processing') break;
    if (Date.now() > deadline) throw new Error(`export ${started.body.jobId} still processing after ${options.timeoutMs ?? 60_000} ms`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 50));
  }
  if (job.status !== 'complete') throw new Error(`export ${JSON.stringify(filters)} ended ${JSON.stringify(job)}`);
  const file = await client.download(job.downloadUrl);
  const text = await file.text();
  if (file.status !== 200) throw new Error(`download of ${job.downloadUrl} answered ${file.status}: ${text}`);
  return { started, job, file, text, csv: await parseCsv(text) };
}
