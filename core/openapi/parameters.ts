/** The parameters of the OpenAPI document, with this implementation's names and rules. */
import { HOT_LEADS, LAST_SEEN_AFTER, MAX_PAGE_SIZE } from '../handlers/filters.ts';
import { DEFAULT_STATS_DAYS } from '../handlers/stats.ts';
import { FORBIDDEN_CLASS } from '../http/client-text.ts';

const TEXT_RULE = 'An empty value is a `validation_error`, not the same as leaving the parameter out; control characters are refused.';

/**
 * A calendar date of a four-digit year, leap days included, as a pattern: the server takes every
 * one and nothing else, so the document says so exactly, which `format: date` alone would not
 * (the parameter takes date-times too, and those without seconds).
 */
const CALENDAR_DATE =
  '(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
/** A hostname label: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A hostname as the server takes it: any case, one trailing dot allowed (`format: hostname` says the same). */
export const HOSTNAME_SCHEMA = { type: 'string', format: 'hostname', pattern: `^${LABEL}(?:\\.${LABEL})*\\.?$`, minLength: 1, maxLength: 253 } as const;
/** A time of day with an explicit zone, seconds and their fraction optional. */
const ZONED_TIME = 'T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';

/** An ISO 8601 date or zoned date-time, exactly as the server parses one (`last_seen_after`, the admin clock's `now`). */
export const INSTANT_PATTERN = `^${CALENDAR_DATE}(?:${ZONED_TIME})?$`;

const query = (name: string, schema: object, description: string) => ({ name, in: 'query', required: false, schema, description }) as const;
const path = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 }, description }) as const;

/** The parameters of the document's components, by name. */
export const PARAMETERS = {
  Limit: query(
    'limit',
    { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 50 },
    `Page size, 1–${MAX_PAGE_SIZE}, default 50 (\`defaultPageSize\` when embedding). Digits only: \`+5\` and \`1e2\` are a \`validation_error\`. It may change between pages of one walk.`,
  ),
  Cursor: query(
    'cursor',
    { type: 'string', minLength: 1, maxLength: 512 },
    'The previous page\'s `nextCursor`. Cursors are signed, expire one hour after they were issued and are bound to the endpoint (and person), ' +
      'every filter value and the key\'s scope (they work across keys of the same scope, e.g. after a rotation). Any forged, edited, expired, ' +
      'foreign, empty or over-512-character cursor is 400 `invalid_cursor`.',
  ),
  Domain: query(
    'domain',
    HOSTNAME_SCHEMA,
    'A hostname: matches that site and its subdomains (`example.com` matches `www.example.com`, never `badexample.com`), case-insensitively, a trailing dot dropped. ' +
      `With a domain-scoped key it can only narrow the key's scope (a parent domain leaves it as it is); anything else is an empty page. ${TEXT_RULE}`,
  ),
  ClientRef: query(
    'client_ref',
    { type: 'string', minLength: 1, maxLength: 128, pattern: `^[^${FORBIDDEN_CLASS}]*$` },
    `Every site registered under this client label; matches exactly, case included. ${TEXT_RULE}`,
  ),
  LastSeenAfter: query(
    LAST_SEEN_AFTER,
    { type: 'string', pattern: INSTANT_PATTERN },
    'Rows whose `lastSeen` is strictly after this ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with a zone (`2026-11-01T09:30:00Z`, `…+02:00`). ' +
      'Any calendar date of a four-digit year; hours 00–23, no leap second, offsets up to ±23:59. Anything else is a `validation_error`.',
  ),
  HotLeads: query(HOT_LEADS, { type: 'string', enum: ['true', 'false'] }, '`true`: hot (ICP-matched) leads only; `false` means no filter.'),
  EventType: query(
    'event_type',
    { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
    'One event type, case-sensitive. Types are an open set, so an unknown type is simply an empty page.',
  ),
  Days: query('days', { type: 'integer', minimum: 1, maximum: 365, default: DEFAULT_STATS_DAYS }, `The period of \`recentEvents\`, 1–365 days, default ${DEFAULT_STATS_DAYS}; digits only.`),
  PersonId: path('id', 'Person identifier. A person outside a domain-scoped key\'s scope is 404 with the same message as one that does not exist.'),
  CompanyId: path('id', 'Company identifier. A company outside a domain-scoped key\'s scope is 404 with the same message as one that does not exist.'),
  JobId: path('jobId', 'The `jobId` returned on start.'),
  Expires: { ...query('expires', { type: 'integer' }, 'From the signed `downloadUrl`, as it spells it: the link\'s expiry, in epoch seconds. Another spelling of the same number (`+n`, `n.0`, a leading zero) is a link that was not signed.'), required: true },
  Signature: { ...query('signature', { type: 'string', pattern: '^[0-9a-f]{64}$' }, 'From the signed `downloadUrl`: HMAC-SHA256 of the job and the expiry.'), required: true },
} as const;

/** The paging and client-filter parameters every list endpoint takes. */
export const LIST_PARAMETERS = [PARAMETERS.Limit, PARAMETERS.Cursor, PARAMETERS.Domain, PARAMETERS.ClientRef] as const;
