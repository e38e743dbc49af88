/** A response read whole, with the body parsed when it is JSON. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: any;
}

/** Options of one request. */
export interface RequestOptions {
  /** The API key to send; null sends none. */
  key?: string | null;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * Thrown instead of sending a request the run cannot afford (`--max-requests` reached), or instead
 * of returning a 429 rate_limit_exceeded the check did not ask for: a spent budget is the run's
 * circumstance, never the server's failure.
 */
export class BudgetSpent extends Error {}

/** Seconds a reply says to wait before the hourly window reopens (Retry-After, else a reset header), if it says. */
export function reopensInSeconds(headers: Headers, nowMs: number = Date.now()): number | undefined {
  const retry = headers.get('retry-after')?.trim();
  if (retry && /^\d+$/.test(retry)) return Number(retry);
  if (retry) {
    const at = Date.parse(retry);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - nowMs) / 1000));
  }
  for (const name of ['ratelimit-reset', 'x-ratelimit-reset']) {
    const value = headers.get(name)?.trim();
    if (!value || !/^\d+$/.test(value)) continue;
    const n = Number(value);
    // Large values are epoch seconds (GitHub's style), small ones seconds from now (the IETF draft's).
    return n > 1e9 ? Math.max(0, n - Math.floor(nowMs / 1000)) : n;
  }
  return undefined;
}

/** Sends requests to the implementation under test and counts them. */
export class HttpClient {
  count = 0;
  /** Whether a 429 rate_limit_exceeded is what the running check asks for (it spends the budget on purpose). */
  allowRateLimited = false;
  /** Set once a 429 the harness did not ask for came back: the message later checks are skipped with. */
  spent: string | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly defaultKey: string,
    private readonly doFetch: typeof fetch,
    /** Most requests the run may send (`--max-requests`); unbounded when not given. */
    readonly maxRequests: number = Infinity,
  ) {}

  /** Sends a request to a path (or an absolute URL, for download links). */
  async request(method: string, pathOrUrl: string, options: RequestOptions = {}): Promise<Reply> {
    if (this.count >= this.maxRequests) throw new BudgetSpent(`not run: --max-requests ${this.maxRequests} reached`);
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.defaultKey : options.key;
    if (key !== null) headers['x-api-key'] = key;
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.baseUrl}${pathOrUrl}`;
    this.count++;
    const res = await this.doFetch(url, { method, headers, body: options.body });
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const reply = { status: res.status, headers: res.headers, text, body };
    if (reply.status === 429 && !this.allowRateLimited && isRateLimited(reply)) {
      const wait = reopensInSeconds(reply.headers);
      const message = `the hourly request budget ran out (${method} ${pathOrUrl.slice(0, 80)} answered 429${wait === undefined ? '' : `, Retry-After ${wait} s`}): not the server's failure; run again when the window reopens`;
      // A scoped key's budget is its own: only the account's, spent, stops the checks after this one.
      if (key === this.defaultKey) this.spent = message;
      throw new BudgetSpent(message);
    }
    return reply;
  }
}

/** A 429 for the hourly budget (not `too_many_exports`, which is about export slots). */
function isRateLimited(reply: Reply): boolean {
  const code = reply.body?.error?.code;
  return code === 'rate_limit_exceeded' || (code !== 'too_many_exports' && reply.headers.has('retry-after'));
}
