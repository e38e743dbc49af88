import { parseString } from 'fast-csv';
import { EXPORT_COLUMNS } from '../../core/exports/columns.ts';
import type { Person } from '../../core/index.ts';

/** Parses CSV text with a real CSV parser into records keyed by header. */
export function parseCsv(text: string): Promise<{ headers: string[]; rows: Record<string, string>[] }> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, string>[] = [];
    let headers: string[] = [];
    parseString(text, { headers: (h) => ((headers = h as string[]), h), strictColumnHandling: true })
      .on('error', reject)
      .on('data', (row: Record<string, string>) => rows.push(row))
      .on('end', () => resolve({ headers, rows }));
  });
}

/** Undoes formula neutralisation: `'=x` was `=x`. */
function cell(value: string): string | null {
  if (value === '') return null;
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

/** A Company text cell: never null, so an empty cell is `''`. */
function text(value: string): string {
  return cell(value) ?? '';
}

/** A CSV record turned back into the Person the list endpoint returns. */
export function personFromCsv(r: Record<string, string>): Person {
  return {
    id: r.id!,
    email: cell(r.email!),
    businessEmail: cell(r.businessEmail!),
    personalEmail: cell(r.personalEmail!),
    firstName: cell(r.firstName!),
    lastName: cell(r.lastName!),
    title: cell(r.title!),
    company: cell(r.company!),
    location: cell(r.location!),
    region: cell(r.region!),
    linkedinUrl: cell(r.linkedinUrl!),
    phone: cell(r.phone!),
    profileImageUrl: cell(r.profileImageUrl!),
    visitCount: Number(r.visitCount),
    firstSeen: r.firstSeen!,
    lastSeen: r.lastSeen!,
    isHotLead: r.isHotLead === 'true',
    classifiedSeniority: cell(r.classifiedSeniority!),
    classifiedJobFunction: cell(r.classifiedJobFunction!),
    trafficType: cell(r.trafficType!),
    adPlatform: cell(r.adPlatform!),
    companyData:
      r.companyId === ''
        ? null
        : {
            companyId: r.companyId!,
            name: text(r.companyName!),
            domain: text(r.companyDomain!),
            standardizedIndustry: text(r.companyIndustry!),
            location: text(r.companyLocation!),
            employeeCount: Number(r.companyEmployeeCount),
          },
    domain: r.domain!,
    clientRef: cell(r.clientRef!),
  };
}

export { EXPORT_COLUMNS };
