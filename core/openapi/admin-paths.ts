/**
 * The admin operations of the OpenAPI document (tag `Admin`, bearer token): one per admin route
 * in `admin-http/routes.ts`. Admin answers carry no rate-limit headers: they count against no budget.
 */
import { JSON_INPUT_SCHEMAS } from '../admin/input-schemas.ts';
import { LOAD_BODY_BYTES, CONTROL_BODY_BYTES } from '../admin-http/body.ts';
import { MAX_DELAY_MS } from '../faults/prefer.ts';
import type { ErrorCode } from '../resources/types.ts';
import {
  accountSchema, clockSchema, deletedSchema, faultRuleSchema, issuedKeySchema, keySchema, loadedSchema, resetSchema, simulationSchema, siteSchema,
  webhookDeliverySchema, webhookEndpointSchema, webhookEndpointWithSecretSchema,
} from './admin-schemas.ts';
import { FORBIDDEN_CLASS } from '../http/client-text.ts';
import { WEBHOOK_EVENT_KINDS } from '../resources/types.ts';
import { HOSTNAME_SCHEMA, INSTANT_PATTERN } from './parameters.ts';
import { HEADERS } from './responses.ts';
import { errorSchema } from './schemas.ts';

/** Admin text as the server takes it: not empty, at most `max` characters, no control character or unpaired surrogate. */
const adminText = (max: number, nullable = false) =>
  ({ type: nullable ? ['string', 'null'] : 'string', minLength: 1, maxLength: max, pattern: `^[^${FORBIDDEN_CLASS}]*$` }) as const;
const webhookUrl = { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', minLength: 1, maxLength: 2048, description: 'An http or https URL.' } as const;
const webhookSecret = { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: '`whsec_` and the base64 of 24 to 64 bytes.' } as const;
const webhookEvents = { type: 'array', items: { type: 'string', enum: WEBHOOK_EVENT_KINDS } } as const;

/** The headers every admin answer carries. */
const ADMIN_HEADERS = { 'X-Request-Id': HEADERS['X-Request-Id'], Date: HEADERS.Date } as const;

const ok = (description: string, schema: object) => ({
  description,
  headers: ADMIN_HEADERS,
  content: { 'application/json': { schema: { type: 'object', properties: { data: schema }, required: ['data'], additionalProperties: false } } },
});
const okList = (description: string, items: object, extra: Record<string, object> = {}) => ({
  description,
  headers: ADMIN_HEADERS,
  content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items }, ...extra }, required: ['data'], additionalProperties: false } } },
});
const failure = (status: number, codes: readonly ErrorCode[], description: string) => ({
  description,
  headers: ADMIN_HEADERS,
  content: { 'application/json': { schema: { allOf: [errorSchema, { properties: { error: { properties: { code: { enum: codes }, status: { const: status } } } } }] } } },
});

/** The error answers of every admin operation. */
const ADMIN_ERRORS = {
  400: failure(400, ['bad_request', 'validation_error'], 'What `api.admin` refuses (an AdminError: an unknown account, key, site or endpoint, a bad item, a key already in use…), with its message; a body that is not JSON, too large or of the wrong type; an unknown query parameter.'),
  401: failure(401, ['unauthorized'], 'No `Authorization` header (an `X-API-Key` does not open admin routes).'),
  403: failure(403, ['forbidden'], 'An `Authorization` header without the admin token.'),
  404: failure(404, ['not_found'], 'Admin over HTTP is off on this server (for `/_admin/faults`: fault injection is off; for `/_admin/simulation`: the host runs no simulation): answered as for any unknown path.'),
  500: failure(500, ['internal_error'], 'An unexpected fault.'),
} as const;

const ADMIN = [{ AdminToken: [] }];
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 }, description });
const ACCOUNT_ID = pathParam('accountId', 'The account.');
const KEY_ID = pathParam('keyId', 'The key\'s id (`key_…`), as issuing and listing show it.');
const ENDPOINT_ID = pathParam('endpointId', 'The endpoint\'s id (`whe_…`).');
const DELIVERY_ID = pathParam('deliveryId', 'The delivery\'s id (`msg_…`), its `webhook-id`.');

const jsonBody = (description: string, schema: object, required = true) => ({
  required,
  description: `${description} At most ${CONTROL_BODY_BYTES} bytes of \`application/json\`.`,
  content: { 'application/json': { schema } },
});
const loadBody = (kind: 'companies' | 'people' | 'events') => ({
  required: true,
  description:
    `At least one item, as one JSON array (\`application/json\`) or one JSON object per line (\`application/x-ndjson\`, read line by line as it arrives, each line an item of the array's schema), at most ${LOAD_BODY_BYTES} bytes (32 MiB). ` +
    `Each item is checked against this schema, the one \`api.admin\` checks with, then against the account (a registered site, a known company or person); the load is one transaction, so a bad item loads nothing, and its message names it and its field (\`${kind}[i].field\`, after \`line N:\` for NDJSON).`,
  content: {
    'application/json': { schema: { type: 'array', items: JSON_INPUT_SCHEMAS[kind], minItems: 1 } },
    'application/x-ndjson': { schema: { type: 'string' } },
  },
});

const operation = (operationId: string, summary: string, responses: Record<number, object>, extra: Record<string, unknown> = {}) => ({
  operationId,
  tags: ['Admin'],
  summary,
  security: ADMIN,
  ...extra,
  responses: { ...responses, ...ADMIN_ERRORS },
});

/** The admin part of the document's `paths`. */
export const ADMIN_PATHS = {
  '/_admin/reset': {
    post: operation('adminReset', 'Reset to the baseline', { 200: ok('Back to the baseline.', resetSchema) }, {
      description:
        'Back to the data the server started with (its baseline: the database as it was when the server started, seeded or not): accounts, sites, keys, people, companies, events, ' +
        'export jobs and their files, webhook endpoints and their delivery log, all in one transaction. Running exports stop, webhook requests in flight are dropped, rate-limit windows ' +
        'are cleared, the clock returns to real time and fault rules are removed. 400 when the server saved no baseline (an embedding that never called `api.saveBaseline()`).',
    }),
  },
  '/_admin/clock': {
    get: operation('adminGetClock', 'The server\'s time', { 200: ok('The time, and whether it can be moved.', clockSchema) }),
    post: operation('adminMoveClock', 'Move the server\'s time forward', { 200: ok('The new time.', clockSchema) }, {
      description:
        'Moves the clock every time rule reads (rate-limit windows, cursor expiry, download links, export retention, webhook retries and delivery-log retention). ' +
        'Time only moves forward; `POST /_admin/reset` takes it back to real time, as does a restart. ' +
        'Leases, by which servers sharing a database take over the export jobs and webhook deliveries of one that died, keep real time. 400 on a server whose clock cannot move.',
      requestBody: jsonBody('Exactly one of the two.', {
        oneOf: [
          { type: 'object', properties: { advanceSeconds: { type: 'integer', minimum: 0, maximum: 315_360_000 } }, required: ['advanceSeconds'], additionalProperties: false },
          { type: 'object', properties: { now: { type: 'string', pattern: INSTANT_PATTERN, description: 'An ISO 8601 date or date-time with a zone, not before the server\'s time.' } }, required: ['now'], additionalProperties: false },
        ],
      }),
    }),
  },
  '/_admin/accounts': {
    get: operation('adminListAccounts', 'List accounts', { 200: okList('Every account, by id.', accountSchema) }),
    post: operation('adminCreateAccount', 'Create an account', { 200: ok('The account (an existing one with the same id and name is returned as it is).', accountSchema) }, {
      requestBody: jsonBody('`id` is generated when left out; the same id under another name is a 400.', { type: 'object', properties: { id: adminText(128), name: adminText(512) }, required: ['name'] }),
    }),
  },
  '/_admin/accounts/{accountId}/sites': {
    get: operation('adminListSites', 'List an account\'s client sites', { 200: okList('The sites.', siteSchema) }, { parameters: [ACCOUNT_ID] }),
    post: operation('adminRegisterSite', 'Register a client site', { 200: ok('The site (the same site with the same clientRef is returned as it is).', siteSchema) }, {
      parameters: [ACCOUNT_ID],
      requestBody: jsonBody('A hostname and an optional client label.', { type: 'object', properties: { domain: HOSTNAME_SCHEMA, clientRef: adminText(128, true) }, required: ['domain'] }),
    }),
  },
  '/_admin/accounts/{accountId}/keys': {
    get: operation('adminListKeys', 'List an account\'s keys', { 200: okList('Every key, revoked ones included, without values.', keySchema) }, { parameters: [ACCOUNT_ID] }),
    post: operation('adminIssueKey', 'Issue a key', { 200: ok('The key with its value, shown this once.', issuedKeySchema) }, {
      parameters: [ACCOUNT_ID],
      requestBody: jsonBody(
        'Without `domain`, an account key; with it, that registered site\'s domain-scoped key (one active key per site). `value` imports an existing key.',
        { type: 'object', properties: { domain: HOSTNAME_SCHEMA, label: { type: 'string' }, value: { type: 'string', pattern: '^vi_live_[0-9a-f]{40}$' } }, additionalProperties: false },
        false,
      ),
    }),
  },
  '/_admin/keys/{keyId}/rotate': {
    post: operation('adminRotateKey', 'Rotate a key', { 200: ok('The new key with its value; the old one stops at once.', issuedKeySchema) }, { parameters: [KEY_ID] }),
  },
  '/_admin/keys/{keyId}/revoke': {
    post: operation('adminRevokeKey', 'Revoke a key', { 200: ok('The key, revoked.', keySchema) }, { parameters: [KEY_ID] }),
  },
  '/_admin/accounts/{accountId}/companies': {
    post: operation('adminLoadCompanies', 'Load companies', { 200: ok('How many were loaded.', loadedSchema) }, { parameters: [ACCOUNT_ID], requestBody: loadBody('companies') }),
  },
  '/_admin/accounts/{accountId}/people': {
    post: operation('adminLoadPeople', 'Load people', { 200: ok('How many were loaded.', loadedSchema) }, { parameters: [ACCOUNT_ID], requestBody: loadBody('people') }),
  },
  '/_admin/accounts/{accountId}/events': {
    post: operation('adminLoadEvents', 'Load events', { 200: ok('How many were new.', loadedSchema) }, { parameters: [ACCOUNT_ID], requestBody: loadBody('events') }),
  },
  '/_admin/accounts/{accountId}/webhooks': {
    get: operation('adminListWebhookEndpoints', 'List webhook endpoints', { 200: okList('The account\'s endpoints, oldest first.', webhookEndpointSchema) }, { parameters: [ACCOUNT_ID] }),
    post: operation('adminCreateWebhookEndpoint', 'Create a webhook endpoint', { 200: ok('The endpoint with its secret.', webhookEndpointWithSecretSchema) }, {
      parameters: [ACCOUNT_ID],
      requestBody: jsonBody('`secret` is generated when left out; `events` chooses the opt-in kinds (`person.identified` always goes).', {
        type: 'object',
        properties: { url: webhookUrl, secret: webhookSecret, events: webhookEvents, enabled: { type: 'boolean' } },
        required: ['url'],
      }),
    }),
  },
  '/_admin/webhooks/{endpointId}': {
    get: operation('adminGetWebhookEndpoint', 'Get a webhook endpoint', { 200: ok('The endpoint.', webhookEndpointSchema) }, { parameters: [ENDPOINT_ID] }),
    patch: operation('adminUpdateWebhookEndpoint', 'Change a webhook endpoint', { 200: ok('The endpoint as changed.', webhookEndpointSchema) }, {
      parameters: [ENDPOINT_ID],
      requestBody: jsonBody('Any of the three; enabling sends what waited.', {
        type: 'object',
        properties: { url: webhookUrl, events: webhookEvents, enabled: { type: 'boolean' } },
        additionalProperties: false,
      }),
    }),
    delete: operation('adminDeleteWebhookEndpoint', 'Delete a webhook endpoint', { 200: ok('Deleted, with its deliveries.', deletedSchema) }, { parameters: [ENDPOINT_ID] }),
  },
  '/_admin/webhooks/{endpointId}/rotate-secret': {
    post: operation('adminRotateWebhookSecret', 'Rotate an endpoint\'s secret', { 200: ok('The endpoint with its new secret.', webhookEndpointWithSecretSchema) }, {
      parameters: [ENDPOINT_ID],
      requestBody: jsonBody('Optional: a given secret, and how long the old one signs too (default a day).', {
        type: 'object',
        properties: { secret: webhookSecret, overlapSeconds: { type: 'integer', minimum: 0, maximum: 2_592_000 } },
        additionalProperties: false,
      }, false),
    }),
  },
  '/_admin/webhooks/{endpointId}/deliveries': {
    get: operation('adminListWebhookDeliveries', 'An endpoint\'s delivery log', {
      200: okList('Deliveries, newest first, with their attempts.', webhookDeliverySchema, { nextBefore: { type: 'string', description: 'Pass as `before` for the next page; absent on the last.' } }),
    }, {
      parameters: [
        ENDPOINT_ID,
        { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
        { name: 'before', in: 'query', required: false, schema: { type: 'string', minLength: 1 }, description: 'A delivery id: the page after it.' },
      ],
    }),
  },
  '/_admin/webhooks/{endpointId}/test': {
    post: operation('adminSendTestWebhook', 'Send a test event to an endpoint', { 200: ok('The test delivery, pending in the outbox.', webhookDeliverySchema) }, {
      description:
        'Puts a signed delivery, marked `test`, in the outbox for this endpoint, about the account\'s own data: for `person.identified` its most recently seen person, for `person.activity` ' +
        'the newest events of the person and site of its newest event. It is sent, retried and logged like any other. 400 when the endpoint is disabled, does not take the kind, or the account has nothing to report yet.',
      parameters: [ENDPOINT_ID],
      requestBody: jsonBody('Optional: the kind, default `person.identified`.', {
        type: 'object',
        properties: { event: { type: 'string', enum: WEBHOOK_EVENT_KINDS } },
        additionalProperties: false,
      }, false),
    }),
  },
  '/_admin/webhook-deliveries/{deliveryId}': {
    get: operation('adminGetWebhookDelivery', 'One delivery with its attempts', { 200: ok('The delivery, each attempt with the body it sent.', webhookDeliverySchema) }, { parameters: [DELIVERY_ID] }),
  },
  '/_admin/webhook-deliveries/{deliveryId}/redeliver': {
    post: operation('adminRedeliverWebhook', 'Send a failed delivery again', { 200: ok('The delivery, pending again with the same webhook-id.', webhookDeliverySchema) }, { parameters: [DELIVERY_ID] }),
  },
  '/_admin/simulation': {
    get: operation('adminGetSimulation', 'The simulated traffic', { 200: ok('Whether it runs, and how.', simulationSchema) }),
    post: operation('adminSwitchSimulation', 'Switch the simulated traffic on or off', { 200: ok('Its state after the switch.', simulationSchema) }, {
      description: 'Where the host runs simulated traffic (`serve`, with or without `--simulate`): starts or stops its batches of new people and activity. Switching off lets a batch under way finish.',
      requestBody: jsonBody('On or off.', { type: 'object', properties: { running: { type: 'boolean' } }, required: ['running'], additionalProperties: false }),
    }),
  },
  '/_admin/faults': {
    get: operation('adminListFaultRules', 'List fault rules', { 200: okList('The rules in force, in the order they apply.', faultRuleSchema) }),
    post: operation('adminAddFaultRule', 'Add a fault rule', { 200: ok('The rule.', faultRuleSchema) }, {
      description:
        'With fault injection on: requests matching `method` and `path` (as requested, or as documented such as `/v1/people/{id}`; both optional) answer `fault` (an error code the ' +
        `operation documents, or \`export_failed\` on \`POST /v1/exports\`) and/or wait \`delayMs\` (up to ${MAX_DELAY_MS}) first, \`times\` times (default: until cleared). A \`Prefer\` header on the request wins over rules.`,
      requestBody: jsonBody('At least one of `fault` and `delayMs`.', {
        type: 'object',
        properties: {
          method: { type: 'string', enum: ['GET', 'POST'] },
          path: { type: 'string' },
          fault: { type: 'string' },
          delayMs: { type: 'integer', minimum: 0, maximum: MAX_DELAY_MS },
          times: { type: 'integer', minimum: 1 },
        },
        additionalProperties: false,
      }),
    }),
    delete: operation('adminClearFaultRules', 'Remove every fault rule', { 200: okList('No rules.', faultRuleSchema) }),
  },
} as const;
