import type { Person } from '../resources/types.ts';

/** A person as an export row: the resource plus the CRM and campaign data exports carry. */
export interface ExportPerson {
  person: Person;
  campaign: string | null;
  crmStatus: string;
}

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
] as const;

/** Characters that make a spreadsheet treat a cell as a formula when they come first: = + - @ tab CR. */
const FORMULA_START = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);

/**
 * Neutralises a text cell a spreadsheet would execute, by prefixing a single quote
 * (OWASP's advice): `=SUM(A1)` becomes `'=SUM(A1)`. Numbers and booleans are not text cells.
 */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.has(value.charCodeAt(0)) ? `'${value}` : value;
}

/** One CSV row, in EXPORT_COLUMNS order; nulls are empty cells. */
export function toCsvRow({ person: p, campaign, crmStatus }: ExportPerson): (string | number | boolean)[] {
  const c = p.companyData;
  const cells: (string | number | boolean | null)[] = [
    p.id, p.email, p.businessEmail, p.personalEmail, p.firstName, p.lastName, p.title, p.company,
    p.location, p.region, p.linkedinUrl, p.phone, p.profileImageUrl, p.visitCount, p.firstSeen,
    p.lastSeen, p.isHotLead, p.classifiedSeniority, p.classifiedJobFunction, p.trafficType, p.adPlatform,
    c?.companyId ?? null, c?.name ?? null, c?.domain ?? null, c?.standardizedIndustry ?? null, c?.location ?? null, c?.employeeCount ?? null,
    p.domain, p.clientRef, campaign, crmStatus,
  ];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] as string | number | boolean | null;
    cells[i] = cell === null ? '' : typeof cell === 'string' ? neutralizeFormula(cell) : cell;
  }
  return cells as (string | number | boolean)[];
}
