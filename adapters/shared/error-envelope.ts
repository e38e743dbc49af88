import { newRequestId } from '../../core/http/request-id.ts';
import { httpDate } from '../../core/time/iso.ts';

/**
 * Codes of the answers an adapter makes itself, for requests its runtime's HTTP layer refuses
 * before they reach the core: the spec's `bad_request` and `internal_error`, and one code per
 * status the spec does not list (named after the status, as the README lists them).
 */
export type AdapterErrorCode = 'bad_request' | 'request_timeout' | 'content_too_large' | 'expectation_failed' | 'headers_too_large' | 'internal_error';

/** An answer an adapter makes itself: status, headers (without the length) and the JSON text. */
export interface Envelope {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * The error envelope `{ error: { code, message, status } }` with the headers every answer of the
 * core carries that an adapter can know: a JSON content type and a request id in the core's
 * format. No rate-limit headers: no key was read, so nothing was counted.
 */
export function errorEnvelope(status: number, code: AdapterErrorCode, message: string): Envelope {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': newRequestId(), date: httpDate(Date.now()) },
    text: JSON.stringify({ error: { code, message, status } }),
  };
}

/** The same envelope as a Fetch Response, for runtimes whose hooks answer with one. */
export function errorEnvelopeResponse(status: number, code: AdapterErrorCode, message: string): Response {
  const { headers, text } = errorEnvelope(status, code, message);
  return new Response(text, { status, headers });
}

/** A client's text as a message repeats it: JSON-quoted and cut to 100 characters. */
export function quoted(text: string): string {
  return text.length <= 100 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 100))}…`;
}

/** Why a request target that names no path is refused (`*`, a URL that does not parse, another scheme). */
export function unusableTargetMessage(target: string): string {
  return `The request target ${quoted(target)} is neither a path nor an absolute http(s) URL.`;
}
