/**
 * A Fetch Response built from JSON text, which hands that text back to an in-process reader
 * instead of decoding it again from the body's bytes.
 *
 * `api.fetch` called in-process (tests, an embedding server) returns a Response whose text the
 * caller almost always reads. Node's Response.text() pulls the body's bytes through a stream,
 * concatenates them and decodes them as UTF-8: for a page of 100 people (~92 KB, a few non-ASCII
 * characters, which take the decoder off its ASCII fast path) that cost ~110 µs, more than the
 * page's SQL. Decoding the UTF-8 of a well-formed string gives the same string back, so text()
 * and json() return it directly. The body is still the real thing: servers that take a Response
 * natively (Bun, Deno) read its bytes, and every other way of reading it (body, arrayBuffer(),
 * clone()) behaves as for any Response.
 */
export class TextResponse extends Response {
  readonly #text: string;

  constructor(text: string, init: ResponseInit) {
    super(text, init);
    this.#text = text;
  }

  /** The body's text while unread (undefined once read), without marking it read: for adapters that write text. */
  peekText(): string | undefined {
    return this.bodyUsed ? undefined : this.#text;
  }

  /** The body as text: the text it was built from, marking the body read as reading it would. */
  override text(): Promise<string> {
    // A body already read, or locked by a reader, fails as it would for any Response.
    if (this.bodyUsed || this.body?.locked) return super.text();
    void this.body?.cancel();
    // Encoding replaced a lone surrogate (JSON.stringify escapes them; SQLite text has none) with
    // U+FFFD, which is what decoding the bytes gives back. Done here, not per response: a string
    // V8 holds one byte a character has none, and a server that writes the text encodes it alike.
    return Promise.resolve(this.#text.toWellFormed());
  }

  /** The body parsed as JSON, from the text it was built from. */
  override json(): Promise<any> {
    return this.text().then((text) => JSON.parse(text));
  }
}
