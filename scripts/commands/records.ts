import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseString } from 'fast-csv';
import { CliError, reason } from './errors.ts';

/** What a file loads: companies, people or events. */
export type Kind = 'companies' | 'people' | 'events';
export const KINDS: readonly Kind[] = ['companies', 'people', 'events'];

/** How a file is written. */
export type Format = 'json' | 'ndjson' | 'csv';

/** A file's items in order, with the line each starts on where the format tells (NDJSON). */
export interface Records {
  items: Record<string, unknown>[];
  lines?: number[];
}

/** The kind a file's name announces (`companies.json`, `people-2026.ndjson`, `events.csv`), if any. */
export function kindFromName(file: string): Kind | undefined {
  const stem = basename(file).toLowerCase();
  return KINDS.find((kind) => stem.startsWith(kind) && !/[a-z]/.test(stem.charAt(kind.length)));
}

/** The format a file's extension names, or a one-line error. */
export function formatOf(file: string): Format {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'csv') return 'csv';
  throw new CliError(`${file}: cannot tell its format; name it .json (an array), .ndjson (one object per line) or .csv (a header row)`);
}

/**
 * CSV cells are text; these columns are read as what the input types want. Nested fields are one
 * JSON cell (a person's `visits`: `[{"domain":"a.example","visitCount":2,"firstSeen":"…","lastSeen":"…"}]`).
 */
const CSV_TYPES: Record<Kind, { numbers: string[]; booleans: string[]; json: string[] }> = {
  companies: { numbers: ['employeeCount'], booleans: ['isHotCompany'], json: [] },
  people: { numbers: [], booleans: ['isHotLead'], json: ['visits'] },
  events: { numbers: [], booleans: [], json: [] },
};
/** An event's own columns stay text; its type-specific extras holding JSON numbers, booleans, arrays or objects are read as such. */
const EVENT_TEXT = new Set(['eventId', 'personId', 'sessionId', 'eventType', 'timestamp', 'url', 'domain']);

/** Reads a file's items: a JSON array, NDJSON, or CSV with a header row. Any unreadable content is a one-line error naming the file. */
export async function readRecords(file: string, kind: Kind): Promise<Records> {
  const format = formatOf(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${reason(error)}`);
  }
  if (format === 'json') return { items: jsonArray(file, text, kind) };
  if (format === 'ndjson') return ndjson(file, text, kind);
  return { items: (await csvRows(file, text)).map((row, i) => typedRow(file, i, row, kind)) };
}

function jsonArray(file: string, text: string, kind: Kind): Record<string, unknown>[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file}: not valid JSON: ${reason(error)}`);
  }
  if (!Array.isArray(value)) throw new CliError(`${file}: a .json file holds one array of ${kind}`);
  value.forEach((item, i) => requireObject(`${file}: ${kind}[${i}]`, item));
  return value as Record<string, unknown>[];
}

function ndjson(file: string, text: string, kind: Kind): Records {
  const items: Record<string, unknown>[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new CliError(`${file} line ${i + 1}: not valid JSON: ${reason(error)}`);
    }
    requireObject(`${file} line ${i + 1}: ${kind}[${items.length}]`, value);
    items.push(value as Record<string, unknown>);
    lines.push(i + 1);
  });
  return { items, lines };
}

function requireObject(where: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError(`${where} is not a JSON object`);
}

function csvRows(file: string, text: string): Promise<Record<string, string>[]> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, string>[] = [];
    parseString<Record<string, string>, Record<string, string>>(text, { headers: true, ignoreEmpty: true })
      .on('error', (error) => reject(new CliError(`${file}: not valid CSV: ${reason(error)}`)))
      .on('data', (row: Record<string, string>) => rows.push(row))
      .on('end', () => resolve(rows));
  });
}

/** A CSV row as an input object: empty cells left out, typed columns converted (see {@link CSV_TYPES}). */
function typedRow(file: string, index: number, row: Record<string, string>, kind: Kind): Record<string, unknown> {
  const types = CSV_TYPES[kind];
  const out: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(row)) {
    if (cell === '') continue;
    if (types.numbers.includes(column) && /^-?\d+(\.\d+)?$/.test(cell.trim())) out[column] = Number(cell);
    else if (types.booleans.includes(column) && /^(true|false)$/i.test(cell.trim())) out[column] = cell.trim().toLowerCase() === 'true';
    else if (types.json.includes(column) || (kind === 'events' && !EVENT_TEXT.has(column) && /^\s*[-\d[{tf]/.test(cell))) {
      try {
        out[column] = JSON.parse(cell);
      } catch (error) {
        // An event's extra that merely looks like JSON (a date "2026-…") stays text.
        if (kind === 'events' && !types.json.includes(column)) out[column] = cell;
        else throw new CliError(`${file}: ${kind}[${index}].${column} is not valid JSON: ${reason(error)}`);
      }
    } else out[column] = cell;
  }
  return out;
}
