/**
 * The operations of the OpenAPI document: one per route in `http/routes.ts` (a test holds the
 * two lists equal), each with every status it can answer. Checks run in the order route and
 * method (404, 405), key (401, 403), hourly limit (429), then the endpoint's own (403, 400, 404).
 */
import type { ErrorCode } from '../resources/types.ts';
import { EXPORT_COLUMNS } from '../exports/columns.ts';
import { exportJobSchema, exportRequestSchema, exportStartedSchema } from './export-schemas.ts';
import { LIST_PARAMETERS, PARAMETERS } from './parameters.ts';
import { COMMON_HEADERS, ERROR_RESPONSES, errorResponse, jsonResponse } from './responses.ts';
import { companySchema, eventSchema, healthSchema, paginationSchema, personSchema, personSummarySchema, statisticsSchema } from './schemas.ts';

const UNKNOWN_PARAMETER = 'an unknown or reserved (`sort`, `order`) query parameter, named in the message';

/** The error responses of an operation that needs a key, plus its own 400 codes and any others. */
function keyed(badRequestCodes: readonly ErrorCode[], badRequestWhen: string, others: Record<string, object> = {}): Record<string, object> {
  return {
    400: errorResponse(400, badRequestCodes, `Bad input: ${badRequestWhen}.`),
    401: ERROR_RESPONSES.Unauthorized,
    403: ERROR_RESPONSES.Forbidden,
    429: ERROR_RESPONSES.RateLimited,
    500: ERROR_RESPONSES.InternalError,
    ...others,
  };
}

const list = (items: object, extra: Record<string, object> = {}) => ({
  type: 'object',
  properties: { ...extra, data: { type: 'array', items }, pagination: paginationSchema },
  required: [...Object.keys(extra), 'data', 'pagination'],
  additionalProperties: false,
});
const one = (item: object) => ({ type: 'object', properties: { data: item }, required: ['data'], additionalProperties: false });

const LIST_BAD_INPUT = `${UNKNOWN_PARAMETER} (\`bad_request\`); a value of the wrong type or format, or a repeated parameter (\`validation_error\`); an unusable cursor (\`invalid_cursor\`)`;
const NO_QUERY = `${UNKNOWN_PARAMETER} (this endpoint takes none), or a path parameter that is not valid percent-encoding`;
const public_ = { security: [] } as const;

/** The document's `paths`. */
export const PATHS = {
  '/v1/health': {
    get: {
      operationId: 'health',
      tags: ['Service'],
      summary: 'Health check',
      description: 'Needs no key and does not count against any limit; takes no parameters and ignores any it is given.',
      ...public_,
      responses: { 200: jsonResponse('The service is up.', healthSchema), 500: ERROR_RESPONSES.InternalError },
    },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'openApiDocument',
      tags: ['Service'],
      summary: 'This OpenAPI document',
      description:
        'Needs no key and does not count against any limit; ignores query parameters. `servers` names where the API is mounted, relative to this document.',
      ...public_,
      responses: {
        200: jsonResponse('The OpenAPI 3.1 document of this API.', { type: 'object', required: ['openapi', 'info', 'paths'] }),
        500: ERROR_RESPONSES.InternalError,
      },
    },
  },
  '/v1/people': {
    get: {
      operationId: 'listPeople',
      tags: ['People'],
      summary: 'List people',
      description: 'People in the caller\'s view, `lastSeen` descending then `id` descending (a keyset walk: a row that existed when it began is never repeated or skipped).',
      parameters: [...LIST_PARAMETERS, PARAMETERS.LastSeenAfter, PARAMETERS.HotLeads],
      responses: { 200: jsonResponse('A page of people.', list(personSchema)), ...keyed(['bad_request', 'validation_error', 'invalid_cursor'], LIST_BAD_INPUT) },
    },
  },
  '/v1/people/{id}': {
    get: {
      operationId: 'getPerson',
      tags: ['People'],
      summary: 'Get one person',
      parameters: [PARAMETERS.PersonId],
      responses: {
        200: jsonResponse('The person.', one(personSchema)),
        ...keyed(['bad_request'], NO_QUERY, { 404: errorResponse(404, ['not_found'], 'No such person, or one outside a domain-scoped key\'s scope.') }),
      },
    },
  },
  '/v1/people/{id}/events': {
    get: {
      operationId: 'listPersonEvents',
      tags: ['People'],
      summary: 'List a person\'s events',
      description:
        'A person\'s journey, newest first (`timestamp` descending, then `eventId` descending); journeys run to thousands of events, so page with `cursor`. ' +
        'The person must be visible to the key; `domain`/`client_ref` narrow their events only. With a domain-scoped key, only events on the sites of its scope.',
      parameters: [PARAMETERS.PersonId, ...LIST_PARAMETERS, PARAMETERS.EventType],
      responses: {
        200: jsonResponse('A page of events, with whose journey it is.', list(eventSchema, { person: personSummarySchema })),
        ...keyed(['bad_request', 'validation_error', 'invalid_cursor'], `${LIST_BAD_INPUT}; a path parameter that is not valid percent-encoding`, {
          404: errorResponse(404, ['not_found'], 'No such person, or one outside a domain-scoped key\'s scope.'),
        }),
      },
    },
  },
  '/v1/companies': {
    get: {
      operationId: 'listCompanies',
      tags: ['Companies'],
      summary: 'List companies',
      description:
        'Companies in the caller\'s view, `lastSeen` descending then `id` descending. With an account key, `domain`/`client_ref` narrow which companies are listed while their figures stay account-wide.',
      parameters: [...LIST_PARAMETERS, PARAMETERS.LastSeenAfter],
      responses: { 200: jsonResponse('A page of companies.', list(companySchema)), ...keyed(['bad_request', 'validation_error', 'invalid_cursor'], LIST_BAD_INPUT) },
    },
  },
  '/v1/companies/{id}': {
    get: {
      operationId: 'getCompany',
      tags: ['Companies'],
      summary: 'Get one company',
      parameters: [PARAMETERS.CompanyId],
      responses: {
        200: jsonResponse('The company.', one(companySchema)),
        ...keyed(['bad_request'], NO_QUERY, { 404: errorResponse(404, ['not_found'], 'No such company, or one outside a domain-scoped key\'s scope.') }),
      },
    },
  },
  '/v1/stats': {
    get: {
      operationId: 'getStats',
      tags: ['Stats'],
      summary: 'Aggregate statistics',
      parameters: [PARAMETERS.Days, PARAMETERS.Domain, PARAMETERS.ClientRef],
      responses: {
        200: jsonResponse('Statistics in the caller\'s view.', one(statisticsSchema)),
        ...keyed(['bad_request', 'validation_error'], `${UNKNOWN_PARAMETER} (\`bad_request\`); a value of the wrong type or format, or a repeated parameter (\`validation_error\`)`),
      },
    },
  },
  '/v1/exports': {
    post: {
      operationId: 'startExport',
      tags: ['Exports'],
      summary: 'Start a bulk CSV export',
      description:
        'Builds a CSV of every person matching the filters, in the background. Counts against the hourly limit. Up to three `processing` exports per account.',
      requestBody: { required: false, description: 'Optional; send it as `application/json` (parameters such as `; charset=utf-8` are accepted). A whitespace-only body is no body.', content: { 'application/json': { schema: exportRequestSchema } } },
      responses: {
        202: jsonResponse('The job started; poll `statusUrl`.', exportStartedSchema),
        ...keyed(
          ['bad_request'],
          'an unsupported filter, a wrong type or a value outside an enum (the message names the key); a body that is not a JSON object, not JSON, not UTF-8, not `application/json` or over 64 KiB; or any query parameter',
          {
            403: errorResponse(403, ['forbidden', 'scope_not_supported'], '`forbidden`: the key is malformed, unknown, revoked or rotated away; `scope_not_supported`: a domain-scoped key.'),
            429: errorResponse(429, ['rate_limit_exceeded', 'too_many_exports'], '`rate_limit_exceeded` (with `Retry-After`): the hourly limit is spent; `too_many_exports`: three exports are already running for the account.', {
              'Retry-After': { required: false, description: 'Present with `rate_limit_exceeded`: seconds until the hourly window closes.', schema: { type: 'integer', minimum: 0 } },
            }),
          },
        ),
      },
    },
  },
  '/v1/exports/{jobId}': {
    get: {
      operationId: 'getExport',
      tags: ['Exports'],
      summary: 'Poll an export',
      parameters: [PARAMETERS.JobId],
      responses: {
        200: jsonResponse('The job in its current state.', exportJobSchema),
        ...keyed(['bad_request'], NO_QUERY, {
          403: errorResponse(403, ['forbidden', 'scope_not_supported'], '`forbidden`: the key is malformed, unknown, revoked or rotated away; `scope_not_supported`: a domain-scoped key.'),
          404: errorResponse(404, ['not_found'], 'An unknown, removed (7 days after creation) or other account\'s job.'),
        }),
      },
    },
  },
  '/v1/exports/{jobId}/download': {
    get: {
      operationId: 'downloadExport',
      tags: ['Exports'],
      summary: 'Download a finished export',
      description:
        'The link a complete job\'s `downloadUrl` gives: no key needed, and not counted against any limit. It works until `completedAt` + 900 s (one second before works; the second it expires it does not).',
      ...public_,
      parameters: [PARAMETERS.JobId, PARAMETERS.Expires, PARAMETERS.Signature],
      responses: {
        200: {
          description:
            'The file: UTF-8 without a byte-order mark, CRLF line ends, RFC 4180 quoting, a header row, then one row per person in the job\'s order. Null is an empty cell; a text cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `\'`.',
          headers: {
            ...COMMON_HEADERS,
            'Content-Disposition': { required: true, description: '`attachment; filename="…"`, the sanitised `filename`.', schema: { type: 'string', pattern: '^attachment; filename="[A-Za-z0-9._-]+\\.csv"$' } },
            'Cache-Control': { required: true, schema: { const: 'private, no-store' } },
          },
          content: {
            'text/csv': {
              schema: { type: 'string', pattern: `^${EXPORT_COLUMNS.join(',')}\\r\\n`, description: `Columns: ${EXPORT_COLUMNS.join(', ')}.` },
            },
          },
        },
        400: errorResponse(400, ['bad_request', 'validation_error'], `${UNKNOWN_PARAMETER} (\`bad_request\`), or a repeated parameter (\`validation_error\`).`),
        403: errorResponse(403, ['forbidden'], 'A tampered, foreign or expired link; polling still shows the same link, and a new export must be started.'),
        404: errorResponse(404, ['not_found'], 'The job is not complete, or was removed.'),
        500: ERROR_RESPONSES.InternalError,
      },
    },
  },
} as const;
