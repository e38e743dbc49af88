import type { ErrorBody } from '../resources/types.ts';
import type { ApiError } from './errors.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The text each JSON response was built from, for adapters that can write text directly. */
const BODY_TEXT = new WeakMap<Response, string>();

/** A JSON response from a value. */
export function json(body: unknown, status = 200): Response {
  return rawJson(JSON.stringify(body), status);
}

/** A JSON response from text that is already JSON (built by SQLite or by concatenation). */
export function rawJson(text: string, status = 200): Response {
  const response = new Response(text, { status, headers: { 'content-type': JSON_TYPE } });
  BODY_TEXT.set(response, text);
  return response;
}

/** A list page from resources that are already JSON text (written by SQLite): `{ data, pagination }`. */
export function jsonList(items: readonly { json: string }[], pagination: unknown): Response {
  return rawJson(`{"data":[${items.map((item) => item.json).join(',')}],"pagination":${JSON.stringify(pagination)}}`);
}

/**
 * The JSON text a response of the core was built from, while its body is unread; undefined for
 * any other response. Reading a Fetch body back out of its stream costs Node more than the page
 * query does, so Node's listener writes this text instead; runtimes whose servers take a
 * Response natively (Bun, Deno) need it not.
 */
export function bodyTextOf(response: Response): string | undefined {
  return response.bodyUsed ? undefined : BODY_TEXT.get(response);
}

/** The error envelope for an ApiError. */
export function errorResponse(err: ApiError): Response {
  const body: ErrorBody = { error: { code: err.code, message: err.message, status: err.status } };
  const res = json(body, err.status);
  for (const [name, value] of Object.entries(err.headers)) res.headers.set(name, value);
  return res;
}
