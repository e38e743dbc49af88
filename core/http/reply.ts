/**
 * What the core reads of a request and what it answers, before either is a Fetch object. The
 * public `api.fetch` takes a Request and returns a Response; an adapter whose runtime has no
 * native Fetch objects (Node's `node:http`) hands the core a {@link CoreRequest} and writes the
 * {@link Reply} itself, skipping two objects per request that cost Node more than the page query.
 */

/** The request headers the core reads. A Fetch `Headers` is one. */
export interface HeaderReader {
  get(name: string): string | null;
  has(name: string): boolean;
}

/** The part of a request the core reads. A Fetch `Request` is one. */
export interface CoreRequest {
  readonly method: string;
  /** The absolute URL (`http://host/path?query`). */
  readonly url: string;
  readonly headers: HeaderReader;
  readonly body: ReadableStream<Uint8Array> | null;
}

/** Response headers by lower-case name: the few operations the core uses, without Fetch's per-call validation. */
export class ReplyHeaders {
  readonly #values = new Map<string, string>();

  constructor(init: Record<string, string> = {}) {
    for (const name in init) this.#values.set(name.toLowerCase(), init[name]!);
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), value);
  }

  /** Adds a value to a list-valued header (`Vary`), comma-separated as Fetch's Headers does. */
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.#values.get(key);
    this.#values.set(key, had === undefined ? value : `${had}, ${value}`);
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  /** Every header, as a plain object of lower-case names (what Node's `writeHead` takes). */
  toObject(): Record<string, string> {
    // A loop: cheaper than Object.fromEntries on the hot path.
    const out: Record<string, string> = {};
    this.#values.forEach((value, name) => (out[name] = value));
    return out;
  }
}

/** An answer of the core: a status, headers and either JSON (text, or its UTF-8 bytes) or a streamed body (a CSV download). */
export class Reply {
  readonly headers: ReplyHeaders;

  constructor(
    readonly status: number,
    /** The body: text the core built, its UTF-8 bytes, a stream, or none. */
    readonly body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null,
    headers: Record<string, string> = {},
  ) {
    this.headers = new ReplyHeaders(headers);
  }
}
