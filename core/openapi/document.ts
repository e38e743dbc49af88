/**
 * The OpenAPI 3.1 document of the API, assembled from the schemas, parameters, responses and
 * paths defined as data in this folder. A part used in several places is written once and
 * referenced (`$ref`) wherever it reappears, so the document reads like a hand-written one.
 */
import { API_VERSION } from '../resources/types.ts';
import { ADMIN_PATHS } from './admin-paths.ts';
import { ADMIN_SCHEMAS } from './admin-schemas.ts';
import { EXPORT_SCHEMAS } from './export-schemas.ts';
import { PARAMETERS } from './parameters.ts';
import { PATHS } from './paths.ts';
import { ERROR_RESPONSES, HEADERS } from './responses.ts';
import { RESOURCE_SCHEMAS } from './schemas.ts';
import { WEBHOOK_SCHEMAS } from './webhook-schemas.ts';
import { WEBHOOK_PARAMETERS, WEBHOOKS } from './webhooks.ts';

const COMPONENTS = {
  schemas: { ...RESOURCE_SCHEMAS, ...EXPORT_SCHEMAS, ...WEBHOOK_SCHEMAS, ...ADMIN_SCHEMAS },
  parameters: { ...PARAMETERS, ...WEBHOOK_PARAMETERS },
  headers: HEADERS,
  responses: ERROR_RESPONSES,
  securitySchemes: {
    ApiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description:
        '`vi_live_` and 40 lowercase hex digits. Missing: 401 `unauthorized`; malformed, unknown, revoked or rotated away: 403 `forbidden`, one message for all. ' +
        'An account key reads the whole account; a domain-scoped key reads the sites of its domain and its subdomains (a ceiling, not a default) and cannot use exports.',
    },
    AdminToken: {
      type: 'http',
      scheme: 'bearer',
      description:
        'The admin token of admin over HTTP (`createApi({ admin: { token } })`; `visitor-intelligence serve` prints one and writes it to its keys file as `adminToken`). ' +
        'Missing: 401 `unauthorized` (an `X-API-Key` does not open admin routes); wrong: 403 `forbidden`.',
    },
  },
} as const;

const DESCRIPTION = `The read-only Visitor Intelligence API, as this implementation serves it: identified visitors (people), their companies, their events, aggregate statistics and asynchronous CSV exports.

This document is the contract the implementation's own behaviour suites hold every response to.

- **Errors** are \`{ "error": { "code", "message", "status" } }\`; the message names the offending parameter, filter or path.
- **Routing**: an unknown path is 404 \`not_found\`; a method a path does not document is 405 \`method_not_allowed\` with an \`Allow\` header (HEAD and OPTIONS included: there is no CORS support); a trailing slash is ignored. See \`components.responses\` \`NoSuchEndpoint\` and \`MethodNotAllowed\`.
- **Checks run in order**: route and method (404, 405), then the key (401, 403), then the hourly limit (429), then the endpoint (403 \`scope_not_supported\`, 400, 404).
- **Query parameters**: each endpoint takes only those it documents: any other (and the reserved \`sort\` and \`order\`) is 400 \`bad_request\` naming it; a repeated one is 400 \`validation_error\`. Text values are 1–256 characters unless stated otherwise.
- **Limits**: 1,000 requests per hour per account, shared by its account keys, and 1,000 per domain-scoped key of its own (both configurable). A window opens with a bucket's first request and lasts one hour. Every authenticated request counts, errors included; requests with no valid key are not counted.
- **Times** are UTC in whole seconds (\`…Z\`); export job times carry \`+00:00\`.
- **Mounting**: \`servers\` names the path the API is mounted under (relative to this document), as an adapter reports it.
- **Admin** (tag \`Admin\`, off unless configured): \`/_admin/\` routes with \`Authorization: Bearer <admin token>\`; they count against no limit and carry no \`X-RateLimit-*\` headers.
- **Fault injection** (off unless enabled): \`Prefer: fault=<error code>\` answers that error as the API would (status, envelope, headers such as \`Retry-After\`) on an operation that documents it, \`Prefer: fault=export_failed\` on \`POST /v1/exports\` starts a job that fails, and \`Prefer: delay=<ms>\` (up to 30,000) waits first; \`Preference-Applied\` says what was done. Anything else in \`Prefer\` is ignored.`;

/** Replaces each reappearance of a component by a `$ref` to it, as plain JSON. */
function linked(value: unknown, refs: Map<object, string>, self?: object): unknown {
  if (value === null || typeof value !== 'object') return value;
  const ref = value === self ? undefined : refs.get(value);
  if (ref) return { $ref: ref };
  if (Array.isArray(value)) return value.map((item) => linked(item, refs));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, linked(item, refs)]));
}

/** The document without `servers`, as plain JSON with `$ref`s. */
function assemble(): Record<string, unknown> {
  const refs = new Map<object, string>();
  for (const [kind, entries] of Object.entries(COMPONENTS)) {
    for (const [name, part] of Object.entries(entries)) refs.set(part, `#/components/${kind}/${name}`);
  }
  const components = Object.fromEntries(
    Object.entries(COMPONENTS).map(([kind, entries]) => [kind, Object.fromEntries(Object.entries(entries).map(([name, part]) => [name, linked(part, refs, part)]))]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'Visitor Intelligence API', version: API_VERSION, description: DESCRIPTION },
    tags: [
      { name: 'People', description: 'Identified visitors and their journeys.' },
      { name: 'Companies', description: 'Companies identified from their visitors.' },
      { name: 'Stats', description: 'Aggregate dashboard statistics.' },
      { name: 'Exports', description: 'Asynchronous bulk CSV exports of people.' },
      { name: 'Service', description: 'Health and this document; no key needed.' },
      { name: 'Webhooks', description: 'What the partner webhook sends to a partner\'s endpoint, signed as Standard Webhooks.' },
      { name: 'Admin', description: 'Admin over HTTP: reset, clock, accounts, sites, keys, loading data, webhook endpoints and fault rules. Off unless configured; needs the admin token.' },
    ],
    security: [{ ApiKey: [] }],
    paths: linked({ ...PATHS, ...ADMIN_PATHS }, refs),
    webhooks: linked(WEBHOOKS, refs),
    components,
  };
}

let parts: { head: string; tail: string } | undefined;

/** The document's text around `servers`, built on first use and kept. */
function textParts(): { head: string; tail: string } {
  if (!parts) {
    const { openapi, info, ...rest } = assemble();
    const head = JSON.stringify({ openapi, info });
    const tail = JSON.stringify(rest);
    parts = { head: `${head.slice(0, -1)},"servers":`, tail: `,${tail.slice(1)}` };
  }
  return parts;
}

/** The servers entry for an API mounted at `prefix` ('' for the root), relative to where the document is served. */
function serversFor(prefix: string): unknown[] {
  return [{ url: prefix === '' ? '/' : prefix, description: prefix === '' ? 'This server.' : `This server, under ${prefix}.` }];
}

/** The document as JSON text for an API mounted at `prefix` ('' for the root). */
export function openApiText(prefix: string): string {
  const { head, tail } = textParts();
  return `${head}${JSON.stringify(serversFor(prefix))}${tail}`;
}

/** The document as a value, for an API mounted at `prefix` ('' for the root). */
export function openApiDocument(prefix = ''): Record<string, unknown> {
  return JSON.parse(openApiText(prefix)) as Record<string, unknown>;
}
