import { csvFormatRow } from 'd3-dsv';
import type { Person } from '../resources/types.ts';
import type { CompaniesTable, PeopleTable } from '../store/schema.ts';
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

/** The person fields an export file shows, as the `people` table holds them. */
export type PersonCsvFields = Pick<
  PeopleTable,
  | 'id' | 'email' | 'business_email' | 'personal_email' | 'first_name' | 'last_name' | 'title' | 'company' | 'location'
  | 'region' | 'linkedin_url' | 'phone' | 'profile_image_url' | 'visit_count' | 'first_seen' | 'last_seen' | 'is_hot_lead'
  | 'classified_seniority' | 'classified_job_function' | 'traffic_type' | 'ad_platform' | 'campaign'
> & { crm_status: string };

/** The company fields an export file shows, as the `companies` table holds them. */
export type CompanyCsvFields = Pick<CompaniesTable, 'id' | 'name' | 'domain' | 'standardized_industry' | 'location' | 'employee_count'>;

/**
 * Export lines are joined from cells formatted once at load (ingest-store.ts, stored-csv.ts):
 * d3-dsv quotes each cell alone, so cells joined by commas equal the line formatted whole.
 *
 *     people.csv_head      id … adPlatform (the person's cells before the company's)
 *     companies.csv_cells  companyId … companyEmployeeCount; empty cells for a person with no company
 *     (the site)           domain, clientRef: the member's attribution, formatted once per site
 *     people.csv_tail      campaign, crmStatus
 */
export function personCsvHead(p: PersonCsvFields): string {
  return csvFormatRow([
    text(p.id), text(p.email), text(p.business_email), text(p.personal_email), text(p.first_name), text(p.last_name),
    text(p.title), text(p.company), text(p.location), text(p.region), text(p.linkedin_url), text(p.phone),
    text(p.profile_image_url), String(p.visit_count), isoSeconds(p.first_seen), isoSeconds(p.last_seen),
    p.is_hot_lead === 1 ? 'true' : 'false', text(p.classified_seniority), text(p.classified_job_function),
    text(p.traffic_type), text(p.ad_platform),
  ]);
}

/** The person's cells after the attribution's: campaign, crmStatus. */
export function personCsvTail(p: PersonCsvFields): string {
  return csvFormatRow([text(p.campaign), text(p.crm_status)]);
}

/** The company's cells of its people's lines: companyId … companyEmployeeCount. */
export function companyCsvCells(c: CompanyCsvFields): string {
  return csvFormatRow([text(c.id), text(c.name), text(c.domain), text(c.standardized_industry), text(c.location), c.employee_count === null ? '' : String(c.employee_count)]);
}

/** The company cells of a person with no company: six empty cells. */
export const NO_COMPANY = ',,,,,';
/** How every line of an export file ends (RFC 4180). */
export const CSV_LINE_END = '\r\n';

/** The attribution's cells: domain, clientRef. */
export function siteCsvCells(site: Pick<Site, 'domain' | 'clientRef'>): string {
  return csvFormatRow([text(site.domain), text(site.clientRef)]);
}

/** A person's stored pieces as an export reads them: pk, `csv_head`, their company's `csv_cells` (null without one), `csv_tail`. */
export type StoredCsvRow = [pk: number, head: string, company: string | null, tail: string];

/** One line of an export file, in EXPORT_COLUMNS order and ended by CRLF, from a person's stored pieces and their attribution's cells. */
export function csvLine(row: StoredCsvRow, siteCells: string): string {
  // core/store/export-whole-file.ts spells the same line in SQL.
  return `${row[1]},${row[2] ?? NO_COMPANY},${siteCells},${row[3]}${CSV_LINE_END}`;
}

/** The header line of every export file. */
export const CSV_HEADER = toCsvLine([...EXPORT_COLUMNS]);

/** One CSV line ended by CRLF (RFC 4180), quoted by d3-dsv (faster than fast-csv's streams). */
export function toCsvLine(cells: string[]): string {
  return `${csvFormatRow(cells)}\r\n`;
}
