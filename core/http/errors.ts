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
