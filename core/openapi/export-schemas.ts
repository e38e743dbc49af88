/**
 * The export schemas of the OpenAPI document: the request body with every filter, the 202 that
 * starts a job, and the job in each of its three states. Enums and limits come from the filter
 * parser's own constants, and the body's keys are checked against `ExportFilters` at compile time.
 */
import { DATE_FIELDS, EXPORT_CRM_STATUSES, EXPORT_LIMITS, SORT_FIELDS, SORT_ORDERS, TIMEFRAMES, type ExportFilters } from '../exports/filters.ts';
import { DOWNLOAD_LINK_SECONDS } from '../exports/download-link.ts';
import { FORBIDDEN_CLASS } from '../http/client-text.ts';
import { HOSTNAME_SCHEMA } from './parameters.ts';
import type { Agree, FromSchema, Same } from './schema-types.ts';

const jobId = { type: 'string', pattern: '^exp_[0-9a-f]{24}$' } as const;

/** Export job times carry an explicit offset, as the spec shows them. */
const offsetInstant = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00$',
  description: 'UTC, whole seconds, with an explicit offset: `YYYY-MM-DDThh:mm:ss+00:00`.',
} as const;

/** Text the server takes: something besides blanks, and no control character or unpaired surrogate. */
const TEXT_PATTERN = `^[^${FORBIDDEN_CLASS}]*[^\\s${FORBIDDEN_CLASS}][^${FORBIDDEN_CLASS}]*$`;
/** A comma list the server takes: at least one item that is not blank, nothing refused anywhere. */
const LIST_PATTERN = `^[^${FORBIDDEN_CLASS}]*[^\\s,${FORBIDDEN_CLASS}][^${FORBIDDEN_CLASS}]*$`;
const TEXT_RULE = 'Control characters and unpaired surrogates are refused, as is a blank value.';

const stringList = (description: string, item: object = { type: 'string', minLength: 1, maxLength: EXPORT_LIMITS.itemLength, pattern: TEXT_PATTERN }, listPattern = LIST_PATTERN) =>
  ({
    description:
      `${description} A JSON array or a comma-separated string; values are trimmed, empty items of a comma list dropped. An empty list is 400 \`bad_request\`: leave the filter out to select everybody. ` +
      `At most ${EXPORT_LIMITS.arrayItems} items of at most ${EXPORT_LIMITS.itemLength} characters. ${TEXT_RULE}`,
    oneOf: [
      { type: 'array', items: item, minItems: 1, maxItems: EXPORT_LIMITS.arrayItems },
      { type: 'string', minLength: 1, pattern: listPattern, description: 'Comma-separated values.' },
    ],
  }) as const;

/** Hostnames, as a list or separated by commas (a space after each comma allowed). */
const HOSTNAME_LIST = `^${HOSTNAME_SCHEMA.pattern.slice(1, -1)}(?:, ?${HOSTNAME_SCHEMA.pattern.slice(1, -1)})*$`;

const flag = (description: string) => ({ type: 'boolean', description }) as const;

export const exportRequestSchema = {
  type: 'object',
  description:
    'Filters, all optional and combined with AND; an empty or missing body exports everyone. Unknown keys, wrong types and ' +
    `values outside an enum are 400 \`bad_request\` naming the key. At most ${EXPORT_LIMITS.bodyBytes} bytes of UTF-8 JSON. ` +
    'Text comparisons ignore case.',
  properties: {
    timeframe: { type: 'string', enum: TIMEFRAMES, description: 'People whose `dateField` is within that window of now, boundary included (`>= now − span`); default everything.' },
    dateField: { type: 'string', enum: DATE_FIELDS, default: 'lastSeen', description: 'Which date `timeframe` reads.' },
    isHotLead: flag("People whose hot-lead flag equals the value."),
    industries: stringList("People whose company's industry is one of these."),
    regions: stringList('People whose region is one of these.'),
    seniority: stringList('People whose classified seniority is one of these.'),
    jobFunctions: stringList('People whose classified job function is one of these.'),
    domains: stringList('People seen on a site matching one of these hostnames (each with its subdomains).', HOSTNAME_SCHEMA, HOSTNAME_LIST),
    pages: stringList('People who viewed one of these paths (from their events; `/pricing/` = `/pricing`).'),
    campaigns: stringList('People whose campaign is one of these.'),
    trafficTypes: stringList('People whose traffic type is one of these.'),
    adPlatforms: stringList('People whose ad platform is one of these.'),
    visitCountMin: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'People with at least this many visits.' },
    hasBusinessEmail: flag('With (`true`) or without (`false`) a business email.'),
    hasLinkedIn: flag('With (`true`) or without (`false`) a LinkedIn URL.'),
    hasPhone: flag('With (`true`) or without (`false`) a phone.'),
    multiClientOnly: flag('`true`: people seen on sites of more than one client (a clientRef, or the domain of a site without one); `false` does not filter.'),
    crmStatus: { type: 'string', enum: EXPORT_CRM_STATUSES, description: '`in_crm` includes customers.' },
    search: {
      type: 'string',
      minLength: 1,
      maxLength: EXPORT_LIMITS.searchLength,
      pattern: TEXT_PATTERN,
      description: `People whose name, company or any email contains it (case-insensitive; \`%\` and \`_\` match literally). ${TEXT_RULE}`,
    },
    sortBy: { type: 'string', enum: SORT_FIELDS, default: 'lastSeen', description: 'File order (`name`: last then first name); ties by person id in the same direction; nulls first ascending, last descending.' },
    sortOrder: { type: 'string', enum: SORT_ORDERS, default: 'desc' },
    filename: {
      type: 'string',
      minLength: 1,
      maxLength: EXPORT_LIMITS.filenameLength,
      pattern: TEXT_PATTERN,
      description: 'Download name, sanitised to letters, digits, `.`, `_` and `-` (at most 120 characters) and ending in `.csv`; default `service_people_<YYYY-MM-DD>.csv`, the creation date.',
    },
  },
  additionalProperties: false,
} as const;

export const exportStartedSchema = {
  type: 'object',
  properties: {
    jobId,
    status: { const: 'processing' },
    statusUrl: { type: 'string', pattern: '^/v1/exports/exp_[0-9a-f]{24}$', description: 'The path to poll, relative to where the API is mounted.' },
    pollAfterSeconds: { type: 'integer', minimum: 1, description: 'Suggested poll interval (5).' },
  },
  required: ['jobId', 'status', 'statusUrl', 'pollAfterSeconds'],
  additionalProperties: false,
} as const;

export const exportProcessingSchema = {
  type: 'object',
  properties: { jobId, status: { const: 'processing' }, createdAt: offsetInstant },
  required: ['jobId', 'status', 'createdAt'],
  additionalProperties: false,
} as const;

export const exportCompleteSchema = {
  type: 'object',
  properties: {
    jobId,
    status: { const: 'complete' },
    createdAt: offsetInstant,
    completedAt: offsetInstant,
    downloadUrl: {
      type: 'string',
      format: 'uri',
      description:
        'Absolute: the request\'s origin and mount point, then `/v1/exports/{jobId}/download?expires=<epoch>&signature=<hex>`. ' +
        'Works without a key until `completedAt` + 900 s; polling later shows the same, dead, link.',
    },
    downloadUrlExpiresInSeconds: { const: DOWNLOAD_LINK_SECONDS, description: 'Counted from `completedAt`, not from the time of reading.' },
    rowCount: { type: 'integer', minimum: 0, description: 'Rows in the file.' },
    partial: { type: 'boolean', description: '`true` when more people matched than one file may hold (1,000,000 rows by default): the file holds the first rows in file order.' },
  },
  required: ['jobId', 'status', 'createdAt', 'completedAt', 'downloadUrl', 'downloadUrlExpiresInSeconds', 'rowCount', 'partial'],
  additionalProperties: false,
} as const;

export const exportFailedSchema = {
  type: 'object',
  description: 'After three interrupted runs or an internal fault; the partial file is dropped.',
  properties: { jobId, status: { const: 'failed' }, createdAt: offsetInstant, error: { type: 'string', description: 'What went wrong.' } },
  required: ['jobId', 'status', 'createdAt', 'error'],
  additionalProperties: false,
} as const;

export const exportJobSchema = {
  description: 'An export job in one of its three states, told apart by `status`. Jobs and their files are removed 7 days after creation.',
  oneOf: [exportProcessingSchema, exportCompleteSchema, exportFailedSchema],
  discriminator: { propertyName: 'status' },
} as const;

/** The export schemas by the name they have in the document's components. */
export const EXPORT_SCHEMAS = {
  ExportRequest: exportRequestSchema,
  ExportStarted: exportStartedSchema,
  ExportJob: exportJobSchema,
  ExportJobProcessing: exportProcessingSchema,
  ExportJobComplete: exportCompleteSchema,
  ExportJobFailed: exportFailedSchema,
} as const;

/** The body of `POST /v1/exports`'s 202. */
export type ExportStarted = FromSchema<typeof exportStartedSchema>;
/** The body of `GET /v1/exports/{jobId}`. */
export type ExportJobView = FromSchema<typeof exportJobSchema>;

// Every filter the parser knows is documented, and nothing else: a mismatch fails tsc here.
export type ExportRequestKeysAgree = Agree<Same<keyof FromSchema<typeof exportRequestSchema>, keyof ExportFilters>>;
