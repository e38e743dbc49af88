/**
 * Which faults each operation can be made to answer, and how each one looks on the wire. An
 * operation answers exactly the error codes its OpenAPI operation documents (read from the same
 * data the document is built from), so an injected fault is always one the contract allows there,
 * and looks as the real one does: status, code, a message like the real one, and its headers.
 */
import { MAX_RUNNING_EXPORTS } from '../handlers/exports.ts';
import { MAX_PAGE_SIZE } from '../handlers/filters.ts';
import { ApiError, invalidCursor, notFound, quoteInput } from '../http/errors.ts';
import type { RateDecision } from '../limits/rate-limiter.ts';
import { PATHS } from '../openapi/paths.ts';
import { ERROR_CODES } from '../openapi/schemas.ts';
import type { ErrorCode } from '../resources/types.ts';

/** A fault a client can ask for: an error code, or `export_failed` (a started export whose job fails). */
export type FaultName = ErrorCode | 'export_failed';

/** The operation that starts exports: the one place `export_failed` applies. */
const START_EXPORT = 'POST /v1/exports';

/** Faults answered before the key is checked, and so not counted, as the real ones are not. */
export const BEFORE_KEY: readonly FaultName[] = ['unauthorized', 'forbidden'];

/** Route paths as the document writes them, by the router's path: a fixed few, and each request names one. */
const documentPaths = new Map<string, string>();

/** `GET /v1/people/:id` as the document names it: `GET /v1/people/{id}`. */
export function operationName(method: string, routePath: string): string {
  // Every request asks, so the route's document path is cached rather than rebuilt each time.
  let path = documentPaths.get(routePath);
  if (path === undefined) documentPaths.set(routePath, (path = routePath.replace(/:(\w+)/g, '{$1}')));
  return `${method.toUpperCase()} ${path}`;
}

const catalog = new Map<string, Set<FaultName>>();
for (const [template, item] of Object.entries(PATHS as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
  for (const [method, operation] of Object.entries(item)) {
    const faults = new Set<FaultName>();
    for (const response of Object.values(operation.responses)) for (const code of codesOf(response)) faults.add(code);
    const name = `${method.toUpperCase()} ${template}`;
    if (name === START_EXPORT) faults.add('export_failed');
    catalog.set(name, faults);
  }
}

/** The error codes an error response of the document carries (none for a success). */
function codesOf(response: unknown): ErrorCode[] {
  const narrowed = (response as { content?: { 'application/json'?: { schema?: { allOf?: unknown[] } } } }).content?.['application/json']?.schema?.allOf?.[1];
  return ((narrowed as { properties?: { error?: { properties?: { code?: { enum?: ErrorCode[] } } } } })?.properties?.error?.properties?.code?.enum ?? []) as ErrorCode[];
}

/** Every fault some operation answers, in the order of the spec's error table. */
export const ALL_FAULTS: readonly FaultName[] = ([...ERROR_CODES, 'export_failed'] as FaultName[]).filter((f) => [...catalog.values()].some((set) => set.has(f)));

/** Whether the operation (`GET /v1/people/{id}`) can answer the fault. */
export function answers(operation: string, fault: string): fault is FaultName {
  return catalog.get(operation)?.has(fault as FaultName) ?? false;
}

/** The faults an operation can answer, for messages. */
export function faultsOf(operation: string): FaultName[] {
  return [...(catalog.get(operation) ?? [])];
}

/** What the error needs besides its code: the operation, its path parameters, and the caller's budget. */
export interface FaultSite {
  operation: string;
  params: Record<string, string>;
  /** The caller's budget as it stands (uncounted): a 429 reports it. */
  budget?: RateDecision;
}

/** The error a fault answers with, worded and headed like the real one on that operation. */
export function faultError(fault: Exclude<FaultName, 'export_failed'>, site: FaultSite): ApiError {
  const { operation, params } = site;
  switch (fault) {
    case 'bad_request':
      return new ApiError(400, 'bad_request', 'Parameter sort is reserved: custom sorting is not supported in this version.');
    case 'validation_error':
      if (operation.includes('/stats')) return new ApiError(400, 'validation_error', 'Parameter days must be an integer from 1 to 365.');
      if (operation.endsWith('/download')) return new ApiError(400, 'validation_error', 'Parameter expires must be given at most once.');
      return new ApiError(400, 'validation_error', `Parameter limit must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
    case 'invalid_cursor':
      return invalidCursor();
    case 'unauthorized':
      return new ApiError(401, 'unauthorized', 'The X-API-Key header is missing: every endpoint but /v1/health needs an API key.');
    case 'forbidden':
      if (operation.endsWith('/download')) return new ApiError(403, 'forbidden', 'This download link has expired; start a new export.');
      return new ApiError(403, 'forbidden', 'The X-API-Key header does not carry a valid, active API key.');
    case 'scope_not_supported':
      return new ApiError(403, 'scope_not_supported', 'Domain-scoped keys cannot use exports; use an account key.');
    case 'not_found':
      if (operation.includes('/exports')) return notFound('No export job with that id exists for this account (jobs are removed 7 days after creation).');
      return notFound(`No ${operation.includes('/companies') ? 'company' : 'person'} with id ${quoteInput(params.id ?? '')} is visible to this key.`);
    case 'rate_limit_exceeded': {
      const retry = site.budget?.retryAfterSeconds ?? 3600;
      return new ApiError(429, 'rate_limit_exceeded', `Hourly request limit of ${site.budget?.limit ?? 1000} reached; retry after ${retry} seconds.`, { 'retry-after': String(retry) });
    }
    case 'too_many_exports':
      return new ApiError(429, 'too_many_exports', `${MAX_RUNNING_EXPORTS} exports are already running for this account; wait for one to finish.`);
    case 'method_not_allowed':
      // No operation documents a 405 (a wrong method is one), so the catalog never offers it.
      throw new Error('method_not_allowed cannot be injected');
    case 'internal_error':
      return new ApiError(500, 'internal_error', 'An unexpected error occurred; it has been logged.');
  }
}
