import { errorEnvelopeResponse, unusableTargetMessage } from './error-envelope.ts';

/**
 * The answer of Bun's `error` and Deno's `onError` hooks: the 500 envelope with a request id,
 * as the core answers its own faults; the fault goes to the console, as the core's default
 * `onError` sends it.
 */
export function handlerFault(error: unknown): Response {
  console.error('[visitor-intelligence] fault in the request handler:', error);
  return errorEnvelopeResponse(500, 'internal_error', 'An unexpected error occurred.');
}

/**
 * The answer to a request whose URL does not parse: Deno builds `request.url` from an
 * absolute-form target as sent (`GET http://[::1/x`), which the core could only fail on.
 */
export function unusableTarget(url: string): Response {
  return errorEnvelopeResponse(400, 'bad_request', unusableTargetMessage(url));
}
