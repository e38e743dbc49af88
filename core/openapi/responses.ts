/**
 * Response headers and error responses of the OpenAPI document. Error responses narrow the
 * envelope to the codes each status can carry on each operation, so a code that drifts fails
 * the behaviour suites' response validation.
 */
import type { ErrorCode } from '../resources/types.ts';
import { errorSchema } from './schemas.ts';

const integerHeader = { type: 'integer', minimum: 0 } as const;

/** The headers of the document's components. */
export const HEADERS = {
  'X-Request-Id': { required: true, description: 'A unique id for tracing this request: `req_` and 32 hex digits.', schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' } },
  'X-RateLimit-Limit': {
    required: true,
    description: 'Requests per hour of the budget this request counted against (the account\'s, or a domain-scoped key\'s own); the account limit for requests with no valid key.',
    schema: integerHeader,
  },
  'X-RateLimit-Remaining': {
    required: true,
    description: 'Requests left in the current window. Requests with no valid key (health, this document, downloads, 401, 403, unknown paths) are not counted and report the account limit.',
    schema: integerHeader,
  },
  Date: { required: true, description: "The API's clock, so clients can reason in server time (e.g. about a download link's 900 seconds).", schema: { type: 'string' } },
  'Retry-After': { required: true, description: 'Seconds until the hourly window that ran out closes.', schema: integerHeader },
  Allow: { required: true, description: 'The methods the path answers.', schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' } },
} as const;

/** Headers every response carries. */
export const COMMON_HEADERS = {
  'X-Request-Id': HEADERS['X-Request-Id'],
  'X-RateLimit-Limit': HEADERS['X-RateLimit-Limit'],
  'X-RateLimit-Remaining': HEADERS['X-RateLimit-Remaining'],
  Date: HEADERS.Date,
} as const;

/** A JSON response with the common headers. */
export function jsonResponse(description: string, schema: object, headers: object = {}): object {
  return { description, headers: { ...COMMON_HEADERS, ...headers }, content: { 'application/json': { schema } } };
}

/** An error response whose envelope carries `status` and one of `codes`. */
export function errorResponse(status: number, codes: readonly ErrorCode[], description: string, headers: object = {}): object {
  const narrowed = { properties: { error: { properties: { code: { enum: codes }, status: { const: status } } } } };
  return jsonResponse(description, { allOf: [errorSchema, narrowed] }, headers);
}

/** The error responses shared by operations, by their name in the document's components. */
export const ERROR_RESPONSES = {
  Unauthorized: errorResponse(401, ['unauthorized'], 'The `X-API-Key` header is missing.'),
  Forbidden: errorResponse(403, ['forbidden'], 'The key is malformed, unknown, revoked or rotated away (one message for all).'),
  RateLimited: errorResponse(
    429,
    ['rate_limit_exceeded'],
    'The hourly limit is spent: 1,000 requests per account (shared by its account keys), 1,000 per domain-scoped key. Every authenticated request counts, errors included.',
    { 'Retry-After': HEADERS['Retry-After'] },
  ),
  InternalError: errorResponse(500, ['internal_error'], 'An unexpected fault; the message is fixed and details go to the server\'s `onError`.'),
  MethodNotAllowed: errorResponse(
    405,
    ['method_not_allowed'],
    'Any method a path does not document (HEAD and OPTIONS included: there is no CORS support). A code the spec does not list.',
    { Allow: HEADERS.Allow },
  ),
  NoSuchEndpoint: errorResponse(404, ['not_found'], 'Any path not in this document.'),
} as const;
