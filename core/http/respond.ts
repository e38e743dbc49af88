import type { ErrorBody } from '../resources/types.ts';
import type { ApiError } from './errors.ts';
import { Reply } from './reply.ts';

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

/** The answer as a Fetch Response: what `api.fetch` returns. */
export function toResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers.toObject() });
}
