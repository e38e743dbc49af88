import type { ErrorCode } from '../resources/types.ts';

/** An error the API answers with its envelope; anything else thrown becomes a 500. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
export const validationError = (message: string) => new ApiError(400, 'validation_error', message);
export const invalidCursor = () =>
  new ApiError(400, 'invalid_cursor', 'Parameter cursor is invalid or expired; start again from the first page.');
export const notFound = (message: string) => new ApiError(404, 'not_found', message);

/** The most characters of a client's input any message repeats. */
export const QUOTED_INPUT_CHARS = 100;

/**
 * A client's input as a message may repeat it: JSON-quoted (so control characters and quotes
 * show as escapes) and cut to its first {@link QUOTED_INPUT_CHARS} characters, `…` after the
 * closing quote when cut. A 1 MB id must not come back as a 1 MB message.
 */
export function quoteInput(text: string): string {
  if (text.length <= QUOTED_INPUT_CHARS) return JSON.stringify(text);
  // Never split a surrogate pair: half of one would show as an escape the client never sent.
  const cut = isHighSurrogate(text.charCodeAt(QUOTED_INPUT_CHARS - 1)) ? QUOTED_INPUT_CHARS - 1 : QUOTED_INPUT_CHARS;
  return `${JSON.stringify(text.slice(0, cut))}…`;
}

/** A name the client chose (a parameter, a method): as it is when it is a plain word, else {@link quoteInput}. */
export function quoteName(name: string): string {
  return /^[\w.-]{1,64}$/.test(name) ? name : quoteInput(name);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
