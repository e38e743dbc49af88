import { connect } from 'node:net';

/** One HTTP/1.1 answer as it came off the wire. */
export interface RawReply {
  status: number;
  /** Header names lowercased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

/**
 * Writes bytes to a server over a plain TCP socket and reads what comes back until the server
 * closes the connection. The bytes go out exactly as given, so requests no HTTP client would
 * send can be tested; the client then half-closes its side, unless `keepWriting` (a client
 * still in the middle of its headers). Resolves with the raw text received.
 */
export function sendRaw(port: number, bytes: string | Buffer, options: { keepWriting?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that refuses a request may reset the connection while the client still writes.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(bytes);
    if (!options.keepWriting) socket.end();
  });
}

/** Splits raw text into the HTTP answers it holds, each read by its Content-Length. */
export function parseReplies(raw: string): RawReply[] {
  const replies: RawReply[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`an incomplete answer: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] === undefined ? rest.length - end - 4 : Number(headers['content-length']);
    const bytes = Buffer.from(rest.slice(end + 4), 'latin1').subarray(0, length);
    const body = bytes.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    replies.push({ status, headers, body, json });
    rest = rest.slice(end + 4 + bytes.toString('latin1').length);
  }
  return replies;
}

/** Sends one raw request and returns the single answer it got (failing when there was not exactly one). */
export async function rawRequest(port: number, bytes: string | Buffer, options: { keepWriting?: boolean } = {}): Promise<RawReply> {
  const raw = await sendRaw(port, bytes, options);
  const replies = parseReplies(raw);
  if (replies.length !== 1) throw new Error(`expected one answer, got ${replies.length}: ${JSON.stringify(raw.slice(0, 300))}`);
  return replies[0]!;
}
