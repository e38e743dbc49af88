import { AdminError } from '../admin/inputs.ts';
import { eachBodyText, readOptionalJson } from '../http/body.ts';
import { badRequest, type ApiError } from '../http/errors.ts';
import type { CoreRequest } from '../http/reply.ts';

/** The most a control body (account, key, clock, webhook, fault rule) may hold. */
export const CONTROL_BODY_BYTES = 64 * 1024;
/** The most a load body (a JSON array or NDJSON of companies, people or events) may hold. */
export const LOAD_BODY_BYTES = 32 * 1024 * 1024;

/** A JSON object body, or `{}` when the body is empty and `optional`. */
export async function readObject(request: CoreRequest, { optional = false } = {}): Promise<Record<string, unknown>> {
  const value = await readOptionalJson(request, CONTROL_BODY_BYTES);
  if (value === undefined && optional) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** Items to load, with the NDJSON line each came from (none for a JSON array). */
export interface LoadItems {
  items: Record<string, unknown>[];
  lines?: number[];
}

/**
 * A load body: a JSON array (`application/json`) or one JSON object per line
 * (`application/x-ndjson`, read and parsed line by line as it arrives). Either is refused past
 * {@link LOAD_BODY_BYTES}; a line that is not a JSON object is named by its number.
 */
export async function readItems(request: CoreRequest, kind: string): Promise<LoadItems> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > LOAD_BODY_BYTES) throw tooLarge();
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-ndjson') return ndjson(request, kind);
  if (type !== 'application/json') throw badRequest(`Send ${kind} as application/json (one array) or application/x-ndjson (one object per line).`);
  const text = await readAll(request);
  if (text.trim() === '') throw emptyBody(kind);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
  if (!Array.isArray(value)) throw badRequest(`The request body must be a JSON array of ${kind}.`);
  // An empty array is a mistake too (a filter that matched nothing), not a load of none.
  if (value.length === 0) throw badRequest(`The request body holds no ${kind}: send at least one, as a JSON array or as NDJSON, one object per line.`);
  value.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest(`${kind}[${i}] is not a JSON object.`);
  });
  return { items: value as Record<string, unknown>[] };
}

/** An AdminError about `kind[i]` of an NDJSON body, with the line it came from in front. */
export function onLine(error: unknown, lines: number[] | undefined): unknown {
  if (!(error instanceof AdminError) || !lines) return error;
  const index = /^(?:companies|people|events)\[(\d+)\]/.exec(error.message)?.[1];
  const line = index === undefined ? undefined : lines[Number(index)];
  return line === undefined ? error : new AdminError(`line ${line}: ${error.message}`);
}

async function ndjson(request: CoreRequest, kind: string): Promise<LoadItems> {
  const items: Record<string, unknown>[] = [];
  const lines: number[] = [];
  let lineNo = 0;
  const take = (line: string) => {
    lineNo++;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw badRequest(`line ${lineNo}: not valid JSON.`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`line ${lineNo}: ${kind}[${items.length}] is not a JSON object.`);
    items.push(value as Record<string, unknown>);
    lines.push(lineNo);
  };
  let rest = '';
  await eachBodyText(request, LOAD_BODY_BYTES, tooLarge, (text) => {
    rest += text;
    let at: number;
    while ((at = rest.indexOf('\n')) >= 0) {
      take(rest.slice(0, at).replace(/\r$/, ''));
      rest = rest.slice(at + 1);
    }
  });
  if (rest !== '') take(rest);
  // No object at all (a file that was never there, which curl sends as nothing) is a mistake, not a load of none.
  if (items.length === 0) throw emptyBody(kind);
  return { items, lines };
}

function emptyBody(kind: string): ApiError {
  return badRequest(`The request body is empty: send ${kind} as a JSON array or as NDJSON, one object per line.`);
}

async function readAll(request: CoreRequest): Promise<string> {
  let text = '';
  await eachBodyText(request, LOAD_BODY_BYTES, tooLarge, (piece) => (text += piece));
  return text;
}

function tooLarge() {
  return badRequest(`A load body may be at most ${LOAD_BODY_BYTES} bytes (32 MiB); split it into several requests.`);
}
