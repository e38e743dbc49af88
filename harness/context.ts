import type { HttpClient, Reply, RequestOptions } from './http.ts';
import type { HarnessConfig, Profile } from './types.ts';

/** Thrown to fail a check. */
export class CheckFailed extends Error {}
/** Thrown to skip a check whose preconditions the data cannot meet. */
export class CheckSkipped extends Error {}

/** A list walked to its end (or to the page limit). */
export interface Walk<T = any> {
  rows: T[];
  pages: Reply[];
  /** Whether the walk reached a page without nextCursor. */
  complete: boolean;
}

/**
 * What the implementation holds, learned through the API itself and remembered across checks so
 * that each list is walked once.
 */
export class Discovery {
  readonly #memo = new Map<string, Promise<unknown>>();

  constructor(
    private readonly http: HttpClient,
    private readonly profile: Profile,
  ) {}

  /** Walks a list endpoint with `limit=100` (or the given query), following nextCursor up to the page limit. */
  walk(path: string, key: string, limit = 100): Promise<Walk> {
    return this.#once(`walk ${key} ${path} ${limit}`, async () => {
      const rows: unknown[] = [];
      const pages: Reply[] = [];
      let cursor: string | undefined;
      do {
        const sep = path.includes('?') ? '&' : '?';
        const reply = await this.http.request('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
        if (reply.status !== 200 || !Array.isArray(reply.body?.data)) {
          throw new CheckFailed(`GET ${path} page ${pages.length + 1} answered ${reply.status}: ${reply.text.slice(0, 200)}`);
        }
        pages.push(reply);
        rows.push(...reply.body.data);
        cursor = reply.body.pagination?.nextCursor;
      } while (cursor && pages.length < this.profile.maxPagesPerWalk);
      return { rows, pages, complete: !cursor };
    }) as Promise<Walk>;
  }

  #once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.#memo.get(key) as Promise<T> | undefined;
    if (!value) {
      value = make();
      this.#memo.set(key, value);
      // A failed discovery is not remembered, so the next check that needs it tries again.
      value.catch(() => this.#memo.delete(key));
    }
    return value;
  }
}

/** What a check works with: the client, the keys, the profile, discovery and assertions. */
export class CheckContext {
  constructor(
    readonly config: Required<Pick<HarnessConfig, 'baseUrl' | 'accountKey' | 'scopedKeys'>>,
    readonly profile: Profile,
    readonly http: HttpClient,
    readonly discover: Discovery,
  ) {}

  get accountKey(): string {
    return this.config.accountKey;
  }

  /** GET with the account key unless another key (or null for none) is given. */
  get(path: string, options: RequestOptions = {}): Promise<Reply> {
    return this.http.request('GET', path, options);
  }

  /** Any method; the body is sent as given. */
  send(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    return this.http.request(method, path, options);
  }

  /** POSTs a JSON body (or none) to start an export. */
  startExport(body?: unknown, key: string = this.accountKey): Promise<Reply> {
    return body === undefined
      ? this.http.request('POST', '/v1/exports', { key })
      : this.http.request('POST', '/v1/exports', { key, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  /** The first domain-scoped key, or a skip when none was given. */
  scoped(index = 0): { domain: string; key: string } {
    const scoped = this.config.scopedKeys[index];
    if (!scoped) this.skip(index === 0 ? 'no domain-scoped key was given (--scoped-key domain=key)' : `needs ${index + 1} domain-scoped keys`);
    return scoped;
  }

  /** Fails the check. */
  fail(message: string): never {
    throw new CheckFailed(message);
  }

  /** Skips the check, saying which precondition the data cannot meet. */
  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  /** Fails unless the condition holds. */
  assert(condition: unknown, message: string): asserts condition {
    if (!condition) this.fail(message);
  }

  /** Fails unless the reply has the status. */
  status(reply: Reply, status: number, what: string): void {
    if (reply.status !== status) this.fail(`${what}: expected ${status}, got ${reply.status} ${reply.text.slice(0, 200)}`);
  }

  /** Fails unless the reply is the error envelope with this status and code. */
  error(reply: Reply, status: number, code: string, what: string): void {
    this.status(reply, status, what);
    const error = reply.body?.error;
    this.assert(error && typeof error === 'object', `${what}: no error envelope in ${reply.text.slice(0, 200)}`);
    this.assert(error.code === code, `${what}: expected code ${code}, got ${JSON.stringify(error.code)}`);
    this.assert(typeof error.message === 'string' && error.message.length > 0, `${what}: error.message is missing`);
    this.assert(error.status === status, `${what}: error.status is ${JSON.stringify(error.status)}, not ${status}`);
  }

  /** The pagination cursor of a reply, or a skip when the list has a single page. */
  nextCursor(reply: Reply, what: string): string {
    const cursor = reply.body?.pagination?.nextCursor;
    if (typeof cursor !== 'string') this.skip(`${what} has a single page, so there is no cursor to use`);
    return cursor;
  }
}
