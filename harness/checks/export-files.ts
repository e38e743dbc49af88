/** What an export's file holds: the rows its filter selects, and the name it downloads under. */
import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import type { Check } from '../types.ts';
import { START, exportOf, fileOf, fullExport, HOT_ONLY, recordsOf, rowCountOf, serverTime, type Job } from './export-support.ts';
import { accountPeople, show } from './list-support.ts';

/** A header cell reduced to lower-case letters and digits, so `isHotLead`, `is_hot_lead` and `Is Hot Lead` compare equal. */
const normalize = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A CSV cell read as a boolean, or undefined when it is not one (the spec shows no CSV spelling, so the usual ones pass). */
function asBoolean(cell: string | undefined): boolean | undefined {
  const text = (cell ?? '').trim();
  if (/^(true|yes|y|1)$/i.test(text)) return true;
  if (/^(false|no|n|0)$/i.test(text)) return false;
  return undefined;
}

/** The file name a Content-Disposition header gives: `filename*` (RFC 6266, percent-encoded) first, then `filename`. */
export function dispositionFilename(header: string): string | undefined {
  const star = /(?:^|;)\s*filename\*\s*=\s*[^']*'[^']*'([^;\s]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      // A broken encoding is as good as no filename*: the plain parameter is the fallback RFC 6266 foresees.
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  return /(?:^|;)\s*filename\s*=\s*([^;\s"]+)/i.exec(header)?.[1];
}

/**
 * The days an export's file may be named after, as YYYYMMDD: the dates of createdAt and
 * completedAt, both as written (the offset's local day) and in UTC, and the download's own day.
 * The spec says only `<date>`, so any of them is the export's date.
 */
function exportDays(job: Job, reply: Reply): Set<string> {
  const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
  const days = new Set<string>();
  for (const stamp of [job.final.createdAt, job.final.completedAt]) {
    if (typeof stamp !== 'string') continue;
    if (/^\d{4}-\d\d-\d\d/.test(stamp)) days.add(stamp.slice(0, 10).replace(/-/g, ''));
    const ms = Date.parse(stamp);
    if (!Number.isNaN(ms)) days.add(utcDay(ms));
  }
  const at = serverTime(reply);
  if (at !== undefined) days.add(utcDay(at));
  return days;
}

export const exportFileChecks: Check[] = [
  {
    id: 'exports.filtered-rows-match',
    section: START,
    title: 'The file of an {isHotLead: true} export holds exactly rowCount rows, every one a hot lead',
    flags: ['exports'],
    async run(t: CheckContext) {
      // The same job as exports.filter-narrows (exportOf starts each body once per run): no extra export.
      const job = await exportOf(t, HOT_ONLY);
      const rowCount = rowCountOf(t, job, 'the {isHotLead:true} export');
      const reply = await fileOf(t, job);
      t.status(reply, 200, 'GET downloadUrl of the {isHotLead:true} export without an API key');
      const records = recordsOf(t, reply, 'the {isHotLead:true} download');
      t.assert(records.length > 0, 'the {isHotLead:true} download is empty: not even a header row');
      const [header, ...rows] = records as [string[], ...string[][]];
      t.assert(rows.length === rowCount, `the {isHotLead:true} file holds ${rows.length} data rows after its header, but its rowCount is ${rowCount}`);
      const hotAt = header.findIndex((h) => ['ishotlead', 'hotlead'].includes(normalize(h)));
      const idAt = header.findIndex((h) => ['id', 'personid'].includes(normalize(h)));
      if (hotAt >= 0) {
        rows.forEach((row, i) => t.assert(asBoolean(row[hotAt]) === true, `row ${i + 1} of the {isHotLead:true} file has ${header[hotAt]} ${show(row[hotAt])}, not true`));
      }
      if (idAt >= 0) {
        // The people list says who is a hot lead now; the file must agree with it.
        const people = await accountPeople(t);
        const byId = new Map(people.rows.map((p) => [p?.id, p]));
        const cold = rows.filter((row) => byId.get(row[idAt])?.isHotLead === false);
        t.assert(cold.length === 0, `the {isHotLead:true} file holds ${cold.length} people the people list shows with isHotLead false, e.g. ${show(cold.slice(0, 3).map((row) => row[idAt]))}`);
        if (people.complete && job.final.partial !== true) {
          const inFile = new Set(rows.map((row) => row[idAt]));
          const missing = people.rows.filter((p) => p?.isHotLead === true && !inFile.has(p.id));
          t.assert(missing.length === 0, `the {isHotLead:true} file misses ${missing.length} of the hot leads the people list shows, e.g. ${show(missing.slice(0, 3).map((p) => p.id))}`);
        }
      }
      if (hotAt < 0 && idAt < 0) t.notApplicable(`the file has neither an isHotLead nor an id column (header ${show(header, 200)}), so its rows cannot be matched with the filter; its row count held`);
    },
  },
  {
    id: 'exports.default-filename',
    section: START,
    title: 'With no `filename`, the download\'s Content-Disposition names it service_people_<date>.csv, the date being the export\'s',
    flags: ['exports'],
    async run(t: CheckContext) {
      const job = await fullExport(t);
      const reply = await fileOf(t, job);
      t.status(reply, 200, 'GET downloadUrl of the export with no body, without an API key');
      const header = reply.headers.get('content-disposition');
      t.assert(header !== null && header.trim() !== '', 'the download has no Content-Disposition header, so it names no file');
      const name = dispositionFilename(header);
      t.assert(name !== undefined, `Content-Disposition ${show(header)} gives no filename`);
      const match = /^service_people_(.+)\.csv$/.exec(name);
      t.assert(match, `the download is named ${show(name)}, not service_people_<date>.csv`);
      // The spec does not show how <date> is written: its digits may come year, month, day in any usual order.
      const digits = match[1]!.replace(/\D/g, '');
      const days = [...exportDays(job, reply)];
      const spellings = days.flatMap((d) => [d, d.slice(6) + d.slice(4, 6) + d.slice(0, 4), d.slice(4, 6) + d.slice(6) + d.slice(0, 4)]);
      t.assert(spellings.some((s) => digits.startsWith(s)), `the download is named ${show(name)}, whose date is none of the export's days (${days.join(', ')}, from createdAt, completedAt and the download's Date)`);
    },
  },
  {
    id: 'exports.file-holds-everyone',
    section: START,
    title: 'The file of an export with no filters holds every person the people list shows, each once',
    flags: ['exports'],
    cost: 1,
    async run(t: CheckContext) {
      // The same job as exports.whole-dataset: its rowCount may be right while the rows are not the right people.
      const job = await fullExport(t);
      const reply = await fileOf(t, job);
      t.status(reply, 200, 'GET downloadUrl of the unfiltered export without an API key');
      const [header = [], ...rows] = recordsOf(t, reply, 'the unfiltered download');
      const idAt = header.findIndex((h) => ['id', 'personid'].includes(normalize(h)));
      if (idAt < 0) t.notApplicable(`the file has no id column (header ${show(header, 200)}), so its rows cannot be matched with people`);
      const ids = rows.map((row) => row[idAt]);
      const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
      t.assert(twice.length === 0, `the unfiltered file holds ${twice.length} people twice, e.g. ${show(twice.slice(0, 3))}`);
      const people = await accountPeople(t);
      if (!people.complete) t.notApplicable(`the people list could not be walked to its end within ${t.profile.maxPagesPerWalk} pages, so who must be in the file is not known`);
      if (job.final.partial === true) t.notApplicable('the export is partial (its meaning is not shown), so it need not hold everyone');
      const inFile = new Set(ids);
      const missing = people.rows.filter((p) => !inFile.has(p?.id));
      t.assert(missing.length === 0, `the unfiltered file misses ${missing.length} of the ${people.rows.length} people the people list shows, e.g. ${show(missing.slice(0, 3).map((p) => p?.id))}`);
    },
  },
];
