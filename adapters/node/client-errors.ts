import { maxHeaderSize as defaultMaxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope, quoted, type AdapterErrorCode, type Envelope } from '../shared/error-envelope.ts';

/**
 * Makes a `node:http` server answer what its HTTP parser refuses (400, 408, 413, 431, 417) with
 * the API's error envelope and an `X-Request-Id`; `serve()` does this, an embedder calls it on its
 * own server. Returns the server.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => void answerClientError(server, error, socket));
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expect = req.headers.expect ?? '';
    writeEnvelope(res, errorEnvelope(417, 'expectation_failed', `Header Expect ${quoted(expect)} cannot be met; this server knows only 100-continue.`));
  });
  return server;
}

/** Writes an envelope as a whole answer on a `ServerResponse`, closing the connection after it. */
export function writeEnvelope(res: ServerResponse, envelope: Envelope, close = true): void {
  const headers: Record<string, string> = { ...envelope.headers, 'content-length': String(Buffer.byteLength(envelope.text)) };
  // A refused request's body may still be on its way: closing keeps it from being read as the next request.
  if (close) headers.connection = 'close';
  res.writeHead(envelope.status, headers).end(envelope.text);
}

/** Sockets whose parse error is being answered: a broken stream can fail to parse again while earlier answers go out. */
const answering = new WeakSet<Duplex>();

async function answerClientError(server: Server, error: NodeJS.ErrnoException, socket: Duplex): Promise<void> {
  // Already answered (more bytes of the same bad request failed to parse again): the socket closes once the answer is out.
  if (socket.writableEnded || answering.has(socket)) return;
  if (error.code === 'ECONNRESET') return void socket.destroy();
  answering.add(socket);
  // Requests parsed whole before the broken one (pipelined) are answered first, in order: Node
  // hands the socket to each queued response as the one before it finishes.
  let inFlight: ServerResponse | null | undefined;
  while ((inFlight = inFlightOn(socket)) && inFlight.req.complete && !inFlight.writableFinished && socket.writable) {
    await new Promise((resolve) => inFlight!.once('close', resolve));
  }
  // An answer that closes the connection was the last: the socket closes once it is out.
  if (socket.writableEnded) return;
  // As Node's own handler: write only on a socket that can take it and only when no answer to
  // the request has begun (a second head in the middle of a body would corrupt both).
  if (!socket.writable || inFlightOn(socket)?.headersSent) return void socket.destroy();
  const envelope = envelopeFor(server, error);
  const head = [`HTTP/1.1 ${envelope.status} ${STATUS_CODES[envelope.status]}`];
  for (const [name, value] of Object.entries(envelope.headers)) head.push(`${name}: ${value}`);
  head.push(`content-length: ${Buffer.byteLength(envelope.text)}`, 'connection: close');
  socket.end(`${head.join('\r\n')}\r\n\r\n${envelope.text}`, () => socket.destroy());
}

/** The response Node is writing on the socket, if any. */
function inFlightOn(socket: Duplex): ServerResponse | null | undefined {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
}

/** The answer to one of Node's parser errors (`HPE_*`) or its request timeout. */
function envelopeFor(server: Server, error: NodeJS.ErrnoException): Envelope {
  const [status, code, message] = answerFor(server, error.code ?? '');
  return errorEnvelope(status, code, message);
}

function answerFor(server: Server, code: string): [number, AdapterErrorCode, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW': {
      const limit = (server as Server & { maxHeaderSize?: number }).maxHeaderSize ?? defaultMaxHeaderSize;
      return [431, 'headers_too_large', `The request line and headers together exceed ${limit} bytes, the most this server reads.`];
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request_timeout', `The request did not arrive in time: headers are awaited ${seconds(server.headersTimeout)}, the whole request ${seconds(server.requestTimeout)}.`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'content_too_large', 'The chunk extensions of the request body are larger than this server reads.'];
    case 'HPE_INVALID_METHOD':
      return [400, 'bad_request', 'The request line is malformed: its method is not an HTTP token.'];
    case 'HPE_INVALID_URL':
      return [400, 'bad_request', 'The request line is malformed: its target holds characters a URL may not.'];
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
    case 'HPE_CR_EXPECTED':
    case 'HPE_LF_EXPECTED':
      return [400, 'bad_request', 'The request line is malformed: expected METHOD, one space, the target, one space and HTTP/1.1.'];
    case 'HPE_INVALID_HEADER_TOKEN':
      return [400, 'bad_request', 'A header name or value holds a character HTTP does not allow (control characters included).'];
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [400, 'bad_request', 'Header Content-Length is invalid: it must be one whole number, and not sent with Transfer-Encoding.'];
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return [400, 'bad_request', 'Header Transfer-Encoding is invalid: chunked must be its last coding.'];
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_STRICT':
      return [400, 'bad_request', 'The chunked request body is malformed.'];
    default:
      return [400, 'bad_request', `The request is not well-formed HTTP/1.1 (${code || 'parse error'}).`];
  }
}

function seconds(ms: number): string {
  return ms > 0 ? `at most ${ms / 1000} s` : 'without limit';
}
