import type { Reply } from '../../core/index.ts';

/**
 * The Node adapter's one fast path: a JSON Response whose body stream is built only when asked
 * for; `text()` and `json()` answer from the core's text, anything else gets an ordinary Response
 * built on first use. Bun and Deno read Responses natively, so only Node uses it.
 */
export function lazyResponse(reply: Reply): Response {
  const init = { status: reply.status, headers: reply.headers.toObject() };
  return typeof reply.body === 'string' ? new LazyTextResponse(reply.body, init) : new Response(reply.body, init);
}

class LazyTextResponse extends Response {
  readonly #text: string;
  readonly #init: ResponseInit;
  /** The ordinary Response that answers for the body, once something other than text() asked. */
  #bodied: Response | undefined;
  /** Whether text() (or json()) answered from the text before any body was made. */
  #read = false;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this.#text = text;
    this.#init = init;
  }

  // The body's other readers, answered by the ordinary Response.
  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#withBody().arrayBuffer();
  }

  override blob(): Promise<Blob> {
    return this.#withBody().blob();
  }

  override bytes(): ReturnType<Response['bytes']> {
    return this.#withBody().bytes();
  }

  override formData(): Promise<FormData> {
    return this.#withBody().formData();
  }

  override clone(): Response {
    return this.#withBody().clone();
  }

  /** The ordinary Response over the same text; one already read through text() is made read too. */
  #withBody(): Response {
    if (!this.#bodied) {
      this.#bodied = new Response(this.#text, this.#init);
      // Cancelling marks the stream disturbed at once: every later read fails as on a read body.
      if (this.#read) void this.#bodied.body?.cancel();
    }
    return this.#bodied;
  }

  override get body(): Response['body'] {
    return this.#withBody().body;
  }

  override get bodyUsed(): boolean {
    return this.#bodied ? this.#bodied.bodyUsed : this.#read;
  }

  /** The body as text: the text it was built from, while no stream was made of it. */
  override text(): Promise<string> {
    if (this.#bodied || this.#read) return this.#withBody().text();
    this.#read = true;
    // A lone surrogate reads back as U+FFFD, as decoding the encoded bytes would give.
    return Promise.resolve(this.#text.toWellFormed());
  }

  /** The body parsed as JSON, from the text it was built from. */
  override json(): Promise<any> {
    return this.text().then((text) => JSON.parse(text));
  }
}
