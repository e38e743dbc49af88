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

/** Sends requests to the implementation under test and counts them. */
export class HttpClient {
  count = 0;

  constructor(
    readonly baseUrl: string,
    private readonly defaultKey: string,
    private readonly doFetch: typeof fetch,
  ) {}

  /** Sends a request to a path (or an absolute URL, for download links). */
  async request(method: string, pathOrUrl: string, options: RequestOptions = {}): Promise<Reply> {
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
    return { status: res.status, headers: res.headers, text, body };
  }
}
