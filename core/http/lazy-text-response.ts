/**
 * A Fetch Response built from JSON text whose body stream is made only when something asks for it.
 *
 * Node builds every Response body as a web ReadableStream in JavaScript, with its controller, its
 * queue and a transferable wrapper each, and collects them afterwards. For a journey page read
 * in-process that came to ~70 µs a request beside a bare `reply` against ~18 µs with no stream
 * (medians, interleaved, 2-core AMD EPYC, 2026-11-29), a quarter of the page. A caller in-process
 * almost always reads `text()` or `json()`, which this answers from the text, as
 * {@link TextResponse} does. Everything else that touches the body (`body`, `arrayBuffer()`,
 * `blob()`, `bytes()`, `formData()`, `clone()`) is answered by an ordinary Response built from the
 * same text on first use, so it behaves as any Response does, `bodyUsed` included.
 *
 * The Response itself holds no body. A server that takes a Response natively (Bun.serve,
 * Deno.serve) reads that, not these methods, and would send nothing: only the Node adapter, whose
 * runtime has no such server, builds these (`ApiOptions.lazyBodies`).
 */
export class LazyTextResponse extends Response {
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

  /** The body's text while unread (undefined once read), without marking it read: for adapters that write text. */
  peekText(): string | undefined {
    return this.bodyUsed ? undefined : this.#text;
  }

  /** The body as text: the text it was built from, while no stream was made of it. */
  override text(): Promise<string> {
    if (this.#bodied || this.#read) return this.#withBody().text();
    this.#read = true;
    // As TextResponse.text: a lone surrogate reads back as U+FFFD, as decoding the bytes gives.
    return Promise.resolve(this.#text.toWellFormed());
  }

  /** The body parsed as JSON, from the text it was built from. */
  override json(): Promise<any> {
    return this.text().then((text) => JSON.parse(text));
  }
}
