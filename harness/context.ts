import type { HttpClient, Reply, RequestOptions } from './http.ts';
import type { HarnessConfig, Profile } from './types.ts';

/** Thrown to fail a check. */
export class CheckFailed extends Error {}
/** Thrown to skip a check that cannot be run as asked (no scoped key given, the request budget spent). */
export class CheckSkipped extends Error {}
/** Thrown when a check's precondition cannot be established: the data cannot show it, or an open choice is unknown. */
export class CheckNotApplicable extends Error {
  constructor(
    message: string,
    /** The `--profile` key that would enable the check, when one would. */
    readonly profileKey?: string,
  ) {
    super(message);
  }
}

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

  /** Walks a list endpoint with `limit=100`, following nextCursor up to the page limit. */
  walk(path: string, key: string): Promise<Walk> {
    return this.once(`walk ${key} ${path}`, async () => {
      const rows: unknown[] = [];
      const pages: Reply[] = [];
      let cursor: string | undefined;
      do {
        const reply = cursor ? await this.http.request('GET', `${pageOf(path)}&cursor=${encodeURIComponent(cursor)}`, { key }) : await this.firstPage(path, key);
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

  /**
   * The first page of a list with `limit=100`, fetched once: a walk starts from it, and a check
   * that reads only first pages (a sample of journeys) gets the same reply instead of asking again.
   * A page that is not a list is not remembered, so the next reader asks again.
   */
  firstPage(path: string, key: string): Promise<Reply> {
    return this.once(`first page ${key} ${path}`, async () => {
      const reply = await this.http.request('GET', pageOf(path), { key });
      if (reply.status !== 200 || !Array.isArray(reply.body?.data)) {
        throw new CheckFailed(`GET ${path} page 1 answered ${reply.status}: ${reply.text.slice(0, 200)}`);
      }
      return reply;
    });
  }

  /** Runs `make` once per harness run and key, for anything checks share; a failure is not remembered. */
  once<T>(key: string, make: () => Promise<T>): Promise<T> {
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

/** A list path asking for pages of 100. */
function pageOf(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}limit=100`;
}

/** What a check works with: the client, the keys, the profile, discovery and assertions. */
export class CheckContext {
  constructor(
    readonly config: Required<Pick<HarnessConfig, 'baseUrl' | 'accountKey' | 'scopedKeys' | 'accountKeys'>>,
    readonly profile: Profile,
    readonly http: HttpClient,
    readonly discover: Discovery,
    /** The profile as the user gave it, before defaults: what discovery must not override. */
    readonly given: Partial<Profile> = {},
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

  /**
   * POSTs to start an export: `body` as JSON, or `raw` as the body text (for bodies that are not
   * valid JSON, or empty), or no body at all when neither is given.
   */
  startExport(body?: unknown, { key = this.accountKey, raw }: { key?: string; raw?: string } = {}): Promise<Reply> {
    const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    return text === undefined
      ? this.http.request('POST', '/v1/exports', { key })
      : this.http.request('POST', '/v1/exports', { key, body: text, headers: { 'content-type': 'application/json' } });
  }

  /** The first domain-scoped key, or a skip when none was given. */
  scoped(): { domain: string; key: string } {
    const scoped = this.config.scopedKeys[0];
    if (!scoped) this.skip('no domain-scoped key was given (--scoped-key domain=key)');
    return scoped;
  }

  /** Fails the check. */
  fail(message: string): never {
    throw new CheckFailed(message);
  }

  /** Skips the check, saying why it cannot be run as asked (data preconditions are {@link notApplicable}). */
  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  /** Ends the check as not applicable: its precondition cannot be established; `profileKey` names the profile key that would enable it. */
  notApplicable(reason: string, profileKey?: string): never {
    throw new CheckNotApplicable(reason, profileKey);
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
    this.envelope(reply, what);
    this.assert(reply.body.error.code === code, `${what}: expected code ${code}, got ${JSON.stringify(reply.body.error.code)}`);
  }

  /** Fails unless the body is `{error: {code, message, status}}`: code and message non-empty strings, status repeating the HTTP status. */
  envelope(reply: Reply, what: string): void {
    const error = reply.body?.error;
    this.assert(error && typeof error === 'object', `${what}: answered ${reply.status} without the error envelope: ${reply.text.slice(0, 200)}`);
    this.assert(typeof error.code === 'string' && error.code.length > 0, `${what}: error.code is ${JSON.stringify(error.code)}`);
    this.assert(typeof error.message === 'string' && error.message.length > 0, `${what}: error.message is ${JSON.stringify(error.message)?.slice(0, 120)}`);
    this.assert(error.status === reply.status, `${what}: error.status is ${JSON.stringify(error.status)} but the HTTP status is ${reply.status}`);
  }

  /** The pagination cursor of a reply, or not applicable when the list has a single page. */
  nextCursor(reply: Reply, what: string): string {
    const cursor = reply.body?.pagination?.nextCursor;
    if (typeof cursor !== 'string') this.notApplicable(`${what} has a single page, so there is no cursor to use`);
    return cursor;
  }
}
