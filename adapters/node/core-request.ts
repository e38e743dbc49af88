import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { MOUNT_HEADER, type CoreRequest, type HeaderReader } from '../../core/index.ts';

/**
 * A Node request as the core reads it, built without a Fetch Request: headers are read from the
 * raw header list when asked for (as a Fetch Headers would give them: every value of a name,
 * comma-joined), and the body becomes a web stream only if a handler reads it.
 */
export class NodeCoreRequest implements CoreRequest {
  readonly headers: HeaderReader;
  #body: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    private readonly req: IncomingMessage,
    readonly url: string,
    /** Where the API is mounted ('' at the root): the only mount header the core sees. */
    mountedAt: string,
  ) {
    this.headers = new RawHeaders(req.rawHeaders, mountedAt, this.#parsedBody() !== undefined);
  }

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body !== undefined) return this.#body;
    const { method } = this.req;
    if (method === 'GET' || method === 'HEAD') return (this.#body = null);
    const parsed = this.#parsedBody();
    if (parsed === undefined) return (this.#body = Readable.toWeb(this.req) as ReadableStream<Uint8Array>);
    // A body parser upstream (e.g. express.json()) already read the stream: pass on what it read.
    const bytes = typeof parsed === 'string' ? parsed : parsed instanceof Uint8Array ? new Uint8Array(parsed) : JSON.stringify(parsed);
    return (this.#body = new Blob([bytes]).stream());
  }

  /** What a body parser upstream read from the stream, if one did. */
  #parsedBody(): unknown {
    const parsed = (this.req as IncomingMessage & { body?: unknown }).body;
    return this.req.readableEnded ? parsed : undefined;
  }
}

/** Request headers over Node's raw list, with the mount header the adapter's, never the client's. */
class RawHeaders implements HeaderReader {
  constructor(
    private readonly raw: string[],
    private readonly mountedAt: string,
    /** A body parsed upstream is passed on re-serialised: the client's Content-Length no longer describes it. */
    private readonly reserialised: boolean,
  ) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (key === MOUNT_HEADER) return this.mountedAt === '' ? null : this.mountedAt;
    if (key === 'content-length' && this.reserialised) return null;
    let value: string | null = null;
    for (let i = 0; i < this.raw.length; i += 2) {
      const header = this.raw[i]!;
      if (header.length === key.length && header.toLowerCase() === key) value = value === null ? this.raw[i + 1]! : `${value}, ${this.raw[i + 1]}`;
    }
    return value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}
