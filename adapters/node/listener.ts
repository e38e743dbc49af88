import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MOUNT_HEADER, type CoreRequest, type Reply } from '../../core/index.ts';
import { NodeCoreRequest } from './core-request.ts';
import { errorEnvelope, unusableTargetMessage, type Envelope } from '../shared/error-envelope.ts';
import { writeEnvelope } from './client-errors.ts';

/**
 * Anything with the Fetch-API shape: the core's Api, or a variant of it. One that also has
 * `reply` (an Api) is served through it, with no Fetch Request or Response on the way; a copy
 * that wraps `fetch` (`{ ...api, fetch }`) has none (`reply` is not enumerable), so every request
 * goes through the wrapper.
 */
export interface FetchHandler {
  fetch(request: Request): Promise<Response>;
  reply?(request: CoreRequest): Promise<Reply>;
}

/** Options shared by the listener and the middleware. */
export interface MountOptions {
  /** Serve only under this path prefix (e.g. `/api`); the API routes what follows it. */
  prefix?: string;
}

/** A `node:http` request listener serving the API; outside `prefix`, the API answers 404. */
export function toNodeListener(api: FetchHandler, options: MountOptions = {}) {
  const mount = createMount(api, options);
  return (req: IncomingMessage, res: ServerResponse): void => {
    void mount(req, res, null);
  };
}

/** A Connect/Express-style middleware: requests outside `prefix` go on to `next()`. */
export function toMiddleware(api: FetchHandler, options: MountOptions = {}) {
  const mount = createMount(api, options);
  return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void => {
    void mount(req, res, next);
  };
}

function createMount(api: FetchHandler, options: MountOptions) {
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const reply = api.reply?.bind(api);
  return async (req: IncomingMessage, res: ServerResponse, next: ((err?: unknown) => void) | null) => {
    const path = originForm(req.url ?? '/');
    // A target that is no path ('*', an unusable URL) names nothing under any prefix: the host's
    // next handler may know it; on its own, the API refuses it.
    if (path === null) return next ? next() : writeEnvelope(res, unusableTarget(req.url ?? ''));
    const inside = prefix === '' || path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`);
    if (!inside && next) return next();
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is refused (serve() leaves this to us, so the refusal has the envelope).
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      return writeEnvelope(res, errorEnvelope(400, 'bad_request', 'Header Host is missing; HTTP/1.1 requires it.'));
    }
    try {
      // Express moves its own mount path into req.baseUrl; the API is told the whole mount
      // point and strips it itself, answering 404 for anything outside it.
      const baseUrl = (req as IncomingMessage & { baseUrl?: string }).baseUrl ?? '';
      const url = `http://${hostOf(req)}${baseUrl}${path}`;
      if (reply) {
        // The core's own API: no Fetch Request or Response on the way (see core/http/reply.ts).
        if (!URL.canParse(url)) return writeEnvelope(res, unusableTarget(req.url ?? ''));
        return await writeReply(await reply(new NodeCoreRequest(req, url, baseUrl + prefix)), res);
      }
      const request = toRequest(req, url, res, baseUrl + prefix);
      if (!request) return writeEnvelope(res, unusableTarget(req.url ?? ''));
      const response = await api.fetch(request);
      await writeResponse(response, res);
    } catch (error) {
      // The API answers every fault itself; this is only a broken socket or stream.
      if (!res.headersSent) writeEnvelope(res, errorEnvelope(500, 'internal_error', 'An unexpected error occurred.'), false);
      else res.destroy(error as Error);
    }
  };
}

/**
 * The path and query a request target names: an origin-form target as it is, an absolute-form
 * one (`http://host/v1/health`, RFC 9112 §3.2.2) by its path and query, whatever its authority;
 * null for anything else (`*`, a URL that does not parse, another scheme).
 */
function originForm(target: string): string | null {
  if (target.startsWith('/')) return target;
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return null;
  }
}

function unusableTarget(target: string): Envelope {
  return errorEnvelope(400, 'bad_request', unusableTargetMessage(target));
}

/** Methods Node's parser accepts that a Fetch Request refuses to carry (CONNECT never reaches a request listener). */
const UNCARRIED_METHODS = new Set(['TRACE']);

/** Headers that describe one connection, not the request: they must not be passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

/** The origin's authority: the Host header (download links carry it), an absolute-form target's authority notwithstanding. */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host;
  return host !== undefined && /^[\w.-]+(:\d+)?$/.test(host) ? host : 'localhost';
}

/** Builds a Fetch Request from a Node request, streaming its body; undefined when its URL does not parse. */
function toRequest(req: IncomingMessage, url: string, res: ServerResponse, mountedAt: string): Request | undefined {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!HOP_BY_HOP.has(req.rawHeaders[i]!.toLowerCase())) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  // Only the adapter says where the API is mounted; a client's own header is dropped.
  if (mountedAt !== '') headers.set(MOUNT_HEADER, mountedAt);
  else headers.delete(MOUNT_HEADER);
  // The request's signal aborts when the client goes away before the answer is complete (not
  // after every answer: an abort builds an exception and runs listeners for nothing).
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const carried = !UNCARRIED_METHODS.has(req.method ?? '');
  const init: RequestInit & { duplex?: 'half' } = { method: carried ? req.method : 'GET', headers, signal: controller.signal };
  if (carried && req.method !== 'GET' && req.method !== 'HEAD') {
    const parsed = (req as IncomingMessage & { body?: unknown }).body;
    if (req.readableEnded && parsed !== undefined) {
      // A body parser upstream (e.g. express.json()) already read the stream: pass on what it read.
      init.body = typeof parsed === 'string' ? parsed : parsed instanceof Uint8Array ? new Uint8Array(parsed) : JSON.stringify(parsed);
      headers.delete('content-length');
    } else {
      init.body = Readable.toWeb(req) as ReadableStream;
      init.duplex = 'half';
    }
  }
  let request: Request;
  try {
    request = new Request(url, init);
  } catch {
    // What Node lets through and a Request refuses is a path that makes no URL (TRACE is handled
    // above); checking beforehand would parse every request's URL twice.
    return undefined;
  }
  // The API serves no such method and answers them as any wrong method (405 with Allow,
  // or 404), as it does under Bun and Deno; the Request only has to name the method.
  if (!carried) Object.defineProperty(request, 'method', { value: req.method });
  return request;
}

/** Writes the core's Reply to a Node response: JSON text in one write, a stream (a CSV download) with backpressure. */
async function writeReply(reply: Reply, res: ServerResponse): Promise<void> {
  closeIfBodyUnread(res);
  const headers = reply.headers.toObject();
  const { body } = reply;
  if (body === null) return void res.writeHead(reply.status, headers).end();
  if (typeof body === 'string') {
    headers['content-length'] = String(Buffer.byteLength(body));
    return void res.writeHead(reply.status, headers).end(body);
  }
  if (body instanceof Uint8Array) {
    headers['content-length'] = String(body.byteLength);
    return void res.writeHead(reply.status, headers).end(body);
  }
  res.writeHead(reply.status, headers);
  await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream), res);
}

/** Writes a Fetch Response to a Node response: JSON in one write, anything else streamed with backpressure. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  closeIfBodyUnread(res);
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (!response.body) return void res.writeHead(response.status, headers).end();
  if (headers['content-type']?.toString().startsWith('application/json')) {
    // JSON answers are one bounded page held in memory: written in one piece, without the
    // per-chunk cost of bridging a web stream to a Node one. Files (CSV downloads) stream.
    const body = new Uint8Array(await response.arrayBuffer());
    headers['content-length'] = String(body.byteLength);
    return void res.writeHead(response.status, headers).end(body);
  }
  res.writeHead(response.status, headers);
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res);
}

/** An answer given before its request's body has all arrived (a refused upload) closes the connection rather than read the rest. */
function closeIfBodyUnread(res: ServerResponse): void {
  if (res.req.complete) return;
  res.shouldKeepAlive = false;
  // Node closes such a socket as soon as the answer is written, and a client still sending its body
  // would then get a reset and may lose the answer: the rest of the body is read and dropped for a
  // moment first, so a client that sends on never holds the connection for long.
  const socket = res.socket;
  if (!socket) return;
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), UNREAD_BODY_LINGER_MS).unref();
  };
}

/** How long a refused upload may go on arriving after its answer before the connection is cut. */
const UNREAD_BODY_LINGER_MS = 2000;
