import { csvFormatRow } from 'd3-dsv';
import type { Person } from '../resources/types.ts';
import type { Site } from '../scope/view.ts';
import { isoSeconds } from '../time/iso.ts';

/**
 * The CSV columns, in their stable order: every Person field with `companyData` flattened to
 * `company*` columns, then the two export-only fields. Renaming or reordering is a breaking change.
 */
export const EXPORT_COLUMNS = [
  'id', 'email', 'businessEmail', 'personalEmail', 'firstName', 'lastName', 'title', 'company',
  'location', 'region', 'linkedinUrl', 'phone', 'profileImageUrl', 'visitCount', 'firstSeen',
  'lastSeen', 'isHotLead', 'classifiedSeniority', 'classifiedJobFunction', 'trafficType', 'adPlatform',
  'companyId', 'companyName', 'companyDomain', 'companyIndustry', 'companyLocation', 'companyEmployeeCount',
  'domain', 'clientRef', 'campaign', 'crmStatus',
] as const satisfies readonly (keyof Person | `company${string}` | 'campaign' | 'crmStatus')[];

/**
 * One person's stored row as an export reads it, in the order of {@link EXPORT_ROW_COLUMNS}: the
 * people columns behind the Person fields (account-wide figures), the company's, and the two
 * export-only fields. The file must equal what the API shows of the same people (the export
 * tests compare it with the list endpoint).
 */
export type ExportRow = [
  pk: number, id: string, email: string | null, businessEmail: string | null, personalEmail: string | null,
  firstName: string | null, lastName: string | null, title: string | null, company: string | null, location: string | null,
  region: string | null, linkedinUrl: string | null, phone: string | null, profileImageUrl: string | null,
  visitCount: number, firstSeen: number, lastSeen: number, isHotLead: number, classifiedSeniority: string | null,
  classifiedJobFunction: string | null, trafficType: string | null, adPlatform: string | null,
  companyId: string | null, companyName: string | null, companyDomain: string | null, companyIndustry: string | null,
  companyLocation: string | null, companyEmployeeCount: number | null, campaign: string | null, crmStatus: string,
];

/** The columns behind {@link ExportRow}, in its order (people aliased `p`, their company `c`). */
export const EXPORT_ROW_COLUMNS = [
  'p.pk', 'p.id', 'p.email', 'p.business_email', 'p.personal_email', 'p.first_name', 'p.last_name', 'p.title', 'p.company',
  'p.location', 'p.region', 'p.linkedin_url', 'p.phone', 'p.profile_image_url', 'p.visit_count', 'p.first_seen', 'p.last_seen',
  'p.is_hot_lead', 'p.classified_seniority', 'p.classified_job_function', 'p.traffic_type', 'p.ad_platform',
  'c.id', 'c.name', 'c.domain', 'c.standardized_industry', 'c.location', 'c.employee_count', 'p.campaign', 'p.crm_status',
] as const satisfies { length: ExportRow['length'] };

/** Characters that make a spreadsheet treat a cell as a formula when they come first: = + - @ tab CR. */
const FORMULA_START = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);

/**
 * Neutralises a text cell a spreadsheet would execute, by prefixing a single quote
 * (OWASP's advice): `=SUM(A1)` becomes `'=SUM(A1)`. Numbers and booleans are not text cells.
 */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.has(value.charCodeAt(0)) ? `'${value}` : value;
}

/** A text cell: empty for null, neutralised otherwise. */
const text = (value: string | null): string => (value === null ? '' : neutralizeFormula(value));

/** One CSV row's cells, in EXPORT_COLUMNS order, for a person attributed to `site`; nulls are empty cells. */
export function toCsvCells(r: ExportRow, site: Pick<Site, 'domain' | 'clientRef'>): string[] {
  const cells: string[] = [];
  // id … profileImageUrl
  for (let i = 1; i <= 13; i++) cells.push(text(r[i] as string | null));
  cells.push(String(r[14]), isoSeconds(r[15]), isoSeconds(r[16]), r[17] === 1 ? 'true' : 'false');
  // classifiedSeniority … companyLocation
  for (let i = 18; i <= 26; i++) cells.push(text(r[i] as string | null));
  cells.push(r[27] === null ? '' : String(r[27]), text(site.domain), text(site.clientRef), text(r[28]), text(r[29]));
  return cells;
}

/** The header line of every export file. */
export const CSV_HEADER = toCsvLine([...EXPORT_COLUMNS]);

/**
 * One CSV line of cells, ended by CRLF (RFC 4180), quoted by d3-dsv (a field holding a comma,
 * quote or line break is quoted, quotes doubled). d3-dsv formats an array of cells about three
 * times as fast as fast-csv's streams, which were most of an export's time.
 */
export function toCsvLine(cells: string[]): string {
  return `${csvFormatRow(cells)}\r\n`;
}
