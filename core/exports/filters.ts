import { forbiddenCharacter, FORBIDDEN_RULE } from '../http/client-text.ts';
import { badRequest, quoteInput } from '../http/errors.ts';
import { normalizeDomain } from '../scope/domain.ts';
import { pagePath } from '../scope/page-path.ts';
import { isoSeconds } from '../time/iso.ts';

export const TIMEFRAMES = ['24h', '7d', '30d', '90d', 'all'] as const;
export const DATE_FIELDS = ['lastSeen', 'firstSeen'] as const;
export const EXPORT_CRM_STATUSES = ['in_crm', 'not_in_crm', 'customers'] as const;
export const SORT_FIELDS = ['lastSeen', 'firstSeen', 'visitCount', 'name', 'company', 'email'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;

/** Largest accepted body, array and text sizes. */
export const EXPORT_LIMITS = { bodyBytes: 64 * 1024, arrayItems: 100, itemLength: 256, searchLength: 200, filenameLength: 200 } as const;

const ARRAY_FILTERS = ['industries', 'regions', 'seniority', 'jobFunctions', 'domains', 'pages', 'campaigns', 'trafficTypes', 'adPlatforms'] as const;
const BOOLEAN_FILTERS = ['isHotLead', 'hasBusinessEmail', 'hasLinkedIn', 'hasPhone', 'multiClientOnly'] as const;

type ArrayFilter = (typeof ARRAY_FILTERS)[number];
type BooleanFilter = (typeof BOOLEAN_FILTERS)[number];

/** The validated filters of an export: what the job selects and how it names and orders the file. */
export type ExportFilters = { [K in ArrayFilter]?: string[] } & { [K in BooleanFilter]?: boolean } & {
  timeframe?: (typeof TIMEFRAMES)[number];
  dateField?: (typeof DATE_FIELDS)[number];
  visitCountMin?: number;
  crmStatus?: (typeof EXPORT_CRM_STATUSES)[number];
  search?: string;
  sortBy?: (typeof SORT_FIELDS)[number];
  sortOrder?: (typeof SORT_ORDERS)[number];
  filename?: string;
};

const KNOWN_KEYS = new Set<string>([...ARRAY_FILTERS, ...BOOLEAN_FILTERS, 'timeframe', 'dateField', 'visitCountMin', 'crmStatus', 'search', 'sortBy', 'sortOrder', 'filename']);

/** Validates a parsed export body, naming the offending key in every 400. */
export function parseExportFilters(body: unknown): ExportFilters {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The export body must be a JSON object.');
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key)) throw badRequest(`Unsupported export filter ${quoteInput(key)}.`);
  }
  const out: ExportFilters = {};
  for (const key of ARRAY_FILTERS) {
    if (input[key] !== undefined) out[key] = readArray(key, input[key]);
  }
  for (const key of BOOLEAN_FILTERS) {
    if (input[key] === undefined) continue;
    if (typeof input[key] !== 'boolean') throw badRequest(`Export filter ${key} must be true or false.`);
    out[key] = input[key] as boolean;
  }
  if (out.domains) out.domains = out.domains.map((d) => normalizeDomain(d) ?? fail(`Export filter domains has ${quoteInput(d)}, which is not a hostname.`));
  if (out.pages) out.pages = out.pages.map(pagePath);
  out.timeframe = readEnum('timeframe', input.timeframe, TIMEFRAMES);
  out.dateField = readEnum('dateField', input.dateField, DATE_FIELDS);
  out.crmStatus = readEnum('crmStatus', input.crmStatus, EXPORT_CRM_STATUSES);
  out.sortBy = readEnum('sortBy', input.sortBy, SORT_FIELDS);
  out.sortOrder = readEnum('sortOrder', input.sortOrder, SORT_ORDERS);
  if (input.visitCountMin !== undefined) {
    const n = input.visitCountMin;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1_000_000_000) throw badRequest('Export filter visitCountMin must be an integer of at least 1.');
    out.visitCountMin = n;
  }
  if (input.search !== undefined) out.search = readText('search', input.search, EXPORT_LIMITS.searchLength);
  if (input.filename !== undefined) out.filename = readText('filename', input.filename, EXPORT_LIMITS.filenameLength);
  for (const key of Object.keys(out) as (keyof ExportFilters)[]) if (out[key] === undefined) delete out[key];
  return out;
}

/** A file name safe in a Content-Disposition header and on any file system, ending in `.csv`. */
export function sanitizeFilename(requested: string | undefined, createdAtSeconds: number): string {
  const fallback = `service_people_${isoSeconds(createdAtSeconds).slice(0, 10)}.csv`;
  if (requested === undefined) return fallback;
  const base = requested
    .replace(/\.csv$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 120);
  return base === '' ? fallback : `${base}.csv`;
}

function readArray(key: string, value: unknown): string[] {
  // A comma list is checked whole, before splitting and trimming could drop what it carried.
  if (typeof value === 'string') refuseForbidden(key, value);
  const items = typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter((s) => s !== '') : value;
  if (!Array.isArray(items)) throw badRequest(`Export filter ${key} must be an array of strings or a comma-separated string.`);
  // An empty list would select nobody (or, read the other way, everybody): neither is what a
  // caller who meant one of them can rely on, so it is refused, as an empty `search` is.
  if (items.length === 0) throw badRequest(`Export filter ${key} must list at least one value; leave it out to select everybody.`);
  if (items.length > EXPORT_LIMITS.arrayItems) throw badRequest(`Export filter ${key} may hold at most ${EXPORT_LIMITS.arrayItems} values.`);
  return items.map((item) => {
    if (typeof item !== 'string' || item.trim() === '' || item.length > EXPORT_LIMITS.itemLength) {
      throw badRequest(`Export filter ${key} must hold non-empty strings of at most ${EXPORT_LIMITS.itemLength} characters.`);
    }
    refuseForbidden(key, item);
    return item.trim();
  });
}

function readEnum<T extends string>(key: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') refuseForbidden(key, value);
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw badRequest(`Export filter ${key} must be one of ${allowed.join(', ')}.`);
  return value as T;
}

function readText(key: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) throw badRequest(`Export filter ${key} must be a non-empty string of at most ${max} characters.`);
  refuseForbidden(key, value);
  return value.trim();
}

/**
 * Refuses a text value holding a control character or an unpaired surrogate, before trimming:
 * SQLite cuts a LIKE pattern at a NUL, so `"\u0000zzqq"` would otherwise select everybody.
 */
function refuseForbidden(key: string, value: string): void {
  const found = forbiddenCharacter(value);
  if (found) throw badRequest(`Export filter ${key} must not contain ${FORBIDDEN_RULE}; found ${found}.`);
}

function fail(message: string): never {
  throw badRequest(message);
}
