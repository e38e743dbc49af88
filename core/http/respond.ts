import type { ErrorBody } from '../resources/types.ts';
import type { ApiError } from './errors.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON response from a value. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE } });
}

/** A JSON response from text that is already JSON (built by SQLite or by concatenation). */
export function rawJson(text: string, status = 200): Response {
  return new Response(text, { status, headers: { 'content-type': JSON_TYPE } });
}

/** The error envelope for an ApiError. */
export function errorResponse(err: ApiError): Response {
  const body: ErrorBody = { error: { code: err.code, message: err.message, status: err.status } };
  const res = json(body, err.status);
  for (const [name, value] of Object.entries(err.headers)) res.headers.set(name, value);
  return res;
}
