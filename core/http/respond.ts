import type { ErrorBody } from '../resources/types.ts';
import type { ApiError } from './errors.ts';
import { Reply } from './reply.ts';
import { LazyTextResponse } from './lazy-text-response.ts';
import { TextResponse } from './text-response.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer from a value. */
export function json(body: unknown, status = 200): Reply {
  return rawJson(JSON.stringify(body), status);
}

/** A JSON answer from text that is already JSON (built by SQLite or by concatenation). */
export function rawJson(text: string, status = 200): Reply {
  return new Reply(status, text, { 'content-type': JSON_TYPE });
}

/** A list page from resources that are already JSON (written by the database): `{ data, pagination }`. */
export function jsonList(items: readonly { json: string }[], pagination: unknown): Reply {
  return rawJson(joinedText(items, `],"pagination":${JSON.stringify(pagination)}}`));
}

/** `{"data":[…items…` + `tail` as one join: one flat string, where `+` would make a rope V8 copies again. */
function joinedText(items: readonly { json: string }[], tail: string): string {
  if (items.length === 0) return `{"data":[${tail}`;
  const parts = items.map((item) => item.json);
  parts[0] = `{"data":[${parts[0]}`;
  parts[parts.length - 1] += tail;
  return parts.join(',');
}

/** The error envelope for an ApiError. */
export function errorResponse(err: ApiError): Reply {
  const body: ErrorBody = { error: { code: err.code, message: err.message, status: err.status } };
  const reply = json(body, err.status);
  for (const [name, value] of Object.entries(err.headers)) reply.headers.set(name, value);
  return reply;
}

/** The answer as a Fetch Response (what `api.fetch` returns); `lazyBodies`: see `ApiOptions.lazyBodies`. */
export function toResponse(reply: Reply, lazyBodies = false): Response {
  const init = { status: reply.status, headers: reply.headers.toObject() };
  if (typeof reply.body !== 'string') return new Response(reply.body, init);
  return lazyBodies ? new LazyTextResponse(reply.body, init) : new TextResponse(reply.body, init);
}

/**
 * The JSON text a response of the core was built from, while its body is unread; undefined for
 * any other response. Reading a Fetch body back out of its stream costs Node more than the page
 * query does, so Node's listener writes this text when it serves a handler other than the core's
 * own (which it asks for a Reply instead); runtimes whose servers take a Response natively (Bun,
 * Deno) need it not.
 */
export function bodyTextOf(response: Response): string | undefined {
  return response instanceof TextResponse || response instanceof LazyTextResponse ? response.peekText() : undefined;
}
