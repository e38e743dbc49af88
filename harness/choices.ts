/**
 * The names the spec leaves open, discovered instead of assumed: the `--profile` value; else the
 * server's OpenAPI document (among the unnamed query parameters of the lists, the date-typed one is
 * the lastSeen-after filter, the boolean one the hot-leads filter, a name or description breaking
 * ties); else probing candidate names against data the filter must change.
 */
import type { CheckContext } from './context.ts';
import type { Reply } from './http.ts';

/** A discovered filter: its parameter, the value meaning "on" (hot leads), and where the name came from. */
export interface FilterName {
  param: string;
  value: string;
  source: 'profile' | 'openapi' | 'probe';
}

/** A filter's name, or why it could not be found. */
type Found = FilterName | { missing: string };

/** The lists that take a lastSeen-after filter. */
export type List = 'people' | 'companies';

/** Names tried, in order, for the lastSeen-after filter when neither the profile nor a document names it. */
export const LAST_SEEN_CANDIDATES = ['last_seen_after', 'lastSeenAfter', 'since', 'updated_since', 'seen_after', 'last_seen_since', 'lastSeenSince', 'after', 'updatedSince', 'last_seen'];
/** Names tried, in order, for the hot-leads filter. */
export const HOT_CANDIDATES = ['hot_leads', 'hotLeads', 'is_hot_lead', 'isHotLead', 'hot_only', 'hotOnly', 'hot', 'hot_lead', 'only_hot'];
/** The query parameters the spec names itself: never one of the unnamed filters. */
const SHOWN = new Set(['limit', 'cursor', 'domain', 'client_ref', 'event_type', 'sort', 'order']);

/** The server's OpenAPI document, or null when it serves none (read once per run). */
export function openApiDocument(t: CheckContext): Promise<any | null> {
  return t.discover.once('openapi document', async () => {
    const reply = await t.get('/v1/openapi.json', { key: null }).catch(() => undefined);
    const doc = reply?.status === 200 ? reply.body : undefined;
    return doc && typeof doc === 'object' && typeof doc.openapi === 'string' && doc.paths && typeof doc.paths === 'object' ? doc : null;
  });
}

/** Follows a local `$ref` (`#/components/…`) in the document. */
function resolve(doc: any, node: any): any {
  for (let i = 0; i < 10 && node && typeof node.$ref === 'string' && node.$ref.startsWith('#/'); i++) {
    node = node.$ref
      .slice(2)
      .split('/')
      .map((part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at: any, part: string) => at?.[part], doc);
  }
  return node;
}

/** The query parameters of `GET /v1/<list>` in the document, with their resolved schemas. */
function queryParameters(doc: any, list: List): { name: string; schema: any; description: string }[] {
  const key = Object.keys(doc.paths).find((p) => p === `/v1/${list}`) ?? Object.keys(doc.paths).find((p) => p.endsWith(`/v1/${list}`));
  const item = key ? resolve(doc, doc.paths[key]) : undefined;
  const params = [...(item?.parameters ?? []), ...(resolve(doc, item?.get)?.parameters ?? [])].map((p) => resolve(doc, p));
  return params
    .filter((p) => p && p.in === 'query' && typeof p.name === 'string' && !SHOWN.has(p.name))
    .map((p) => ({ name: p.name, schema: resolve(doc, p.schema) ?? {}, description: String(p.description ?? '') }));
}

/** Whether a schema (or one of its alternatives) describes a date or date-time. */
function dateLike(schema: any): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if (schema.format === 'date' || schema.format === 'date-time') return true;
  // `^\d{4}-…`, `^(\d{4}-…` or `^(?:\d{4}-…`: a pattern whose text begins with a year.
  if (typeof schema.pattern === 'string' && /^\^?(?:\((?:\?:)?)?\\d\{4\}-/.test(schema.pattern)) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(dateLike);
}

/** Whether a schema describes a boolean flag, and the value that turns it on. */
function booleanOn(schema: any): string | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  if (schema.type === 'boolean') return 'true';
  const values = Array.isArray(schema.enum) ? schema.enum.map((v: unknown) => String(v).toLowerCase()) : [];
  if (values.length > 0 && values.every((v: string) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v))) return values.includes('true') ? 'true' : values.includes('1') ? '1' : values.includes('yes') ? 'yes' : undefined;
  return undefined;
}

/** The one entry that fits, the hint breaking a tie; undefined when none or still several. */
function pick<T extends { name: string; description: string }>(fits: T[], hint: RegExp): T | undefined {
  if (fits.length <= 1) return fits[0];
  const hinted = fits.filter((p) => hint.test(p.name) || hint.test(p.description));
  return hinted.length === 1 ? hinted[0] : undefined;
}

/** The lastSeen-after filter of a list as the document names it. */
function lastSeenFromDocument(doc: any, list: List): string | undefined {
  return pick(queryParameters(doc, list).filter((p) => dateLike(p.schema)), /seen|after|since/i)?.name;
}

/** The hot-leads filter as the document names it, with its "on" value. */
function hotFromDocument(doc: any): { param: string; value: string } | undefined {
  const fits = queryParameters(doc, 'people')
    .map((p) => ({ ...p, on: booleanOn(p.schema) }))
    .filter((p) => p.on !== undefined && !dateLike(p.schema));
  const chosen = pick(fits, /hot/i);
  return chosen ? { param: chosen.name, value: chosen.on! } : undefined;
}

/** Whether a probe reply is a non-empty page every row of which passes `keep`. */
function narrows(reply: Reply, keep: (row: any) => boolean): boolean {
  return reply.status === 200 && Array.isArray(reply.body?.data) && reply.body.data.length > 0 && reply.body.data.every(keep);
}

/** Epoch milliseconds of an instant, or NaN. */
const instant = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : NaN);

/**
 * An instant among a page's lastSeen values that some rows are after and some are not (the median
 * of the distinct values, never the newest), or undefined when the page shows fewer than two.
 */
export function cutOf(rows: any[]): string | undefined {
  const byTime = new Map<number, string>();
  for (const r of rows) if (!Number.isNaN(instant(r?.lastSeen))) byTime.set(instant(r.lastSeen), r.lastSeen);
  const distinct = [...byTime.entries()].sort((a, b) => b[0] - a[0]).map(([, v]) => v);
  if (distinct.length < 2) return undefined;
  return distinct[Math.max(1, Math.floor(distinct.length / 2))];
}

/** Probes candidate names on the list's first page: the first whose answer keeps only rows after the cut. */
async function probeLastSeen(t: CheckContext, list: List, first: string[]): Promise<Found> {
  const page = await t.discover.firstPage(`/v1/${list}`, t.accountKey);
  const cut = cutOf(page.body.data);
  if (!cut) return { missing: `the first page of ${list} shows fewer than two distinct lastSeen values, so a filter on it cannot be told from an ignored parameter` };
  const candidates = [...new Set([...first, ...LAST_SEEN_CANDIDATES])];
  for (const param of candidates) {
    const reply = await t.get(`/v1/${list}?${encodeURIComponent(param)}=${encodeURIComponent(cut)}&limit=100`);
    if (narrows(reply, (r) => instant(r?.lastSeen) > instant(cut))) return { param, value: cut, source: 'probe' };
  }
  return { missing: `no OpenAPI document names it, and none of the candidate names (${candidates.join(', ')}) kept only the ${list} seen after ${cut}: the server names it otherwise, or ignores it` };
}

/** Probes candidate names for the hot-leads filter: the first whose answer keeps only hot leads. */
async function probeHot(t: CheckContext, value: string): Promise<Found> {
  const people = await t.discover.walk('/v1/people', t.accountKey);
  const page = await t.discover.firstPage('/v1/people', t.accountKey);
  if (!people.rows.some((p) => p?.isHotLead === true)) return { missing: 'no person is a hot lead, so a hot-leads filter cannot be told from an ignored parameter' };
  if (!page.body.data.some((p: any) => p?.isHotLead === false)) return { missing: 'the first page of people holds no one who is not a hot lead, so a hot-leads filter cannot be told from an ignored parameter' };
  for (const param of HOT_CANDIDATES) {
    const reply = await t.get(`/v1/people?${encodeURIComponent(param)}=${encodeURIComponent(value)}&limit=100`);
    if (narrows(reply, (p) => p?.isHotLead === true)) return { param, value, source: 'probe' };
  }
  return { missing: `no OpenAPI document names it, and none of the candidate names (${HOT_CANDIDATES.join(', ')}) with ${value} kept only hot leads: the server names it otherwise, or ignores it` };
}

/** The lastSeen-after filter of a list, found once per run. */
function findLastSeen(t: CheckContext, list: List): Promise<Found> {
  return t.discover.once(`choice lastSeenAfter ${list}`, async (): Promise<Found> => {
    if (t.given.lastSeenAfterParam) return { param: t.given.lastSeenAfterParam, value: '', source: 'profile' };
    const doc = await openApiDocument(t);
    const named = doc ? lastSeenFromDocument(doc, list) : undefined;
    if (named) return { param: named, value: '', source: 'openapi' };
    // Companies try the name people answered to first: implementations name both alike.
    const other = list === 'companies' ? await findLastSeen(t, 'people') : undefined;
    return probeLastSeen(t, list, other && 'param' in other ? [other.param] : []);
  });
}

/** The hot-leads filter, found once per run. */
function findHot(t: CheckContext): Promise<Found> {
  return t.discover.once('choice hotLeads', async (): Promise<Found> => {
    if (t.given.hotLeadsParam) return { param: t.given.hotLeadsParam, value: t.profile.hotLeadsValue, source: 'profile' };
    const doc = await openApiDocument(t);
    const named = doc ? hotFromDocument(doc) : undefined;
    if (named) return { ...named, value: t.given.hotLeadsValue ?? named.value, source: 'openapi' };
    return probeHot(t, t.profile.hotLeadsValue);
  });
}

/** The lastSeen-after filter of a list, or the check is n/a naming the profile key. */
export async function lastSeenAfter(t: CheckContext, list: List): Promise<FilterName> {
  const found = await findLastSeen(t, list);
  if ('missing' in found) t.notApplicable(`the lastSeen-after filter's name is not known: ${found.missing}`, 'lastSeenAfterParam');
  return found;
}

/** The hot-leads filter, or the check is n/a naming the profile key. */
export async function hotLeads(t: CheckContext): Promise<FilterName> {
  const found = await findHot(t);
  if ('missing' in found) t.notApplicable(`the hot-leads filter's name is not known: ${found.missing}`, 'hotLeadsParam');
  return found;
}

/** The lastSeen-after filter of a list when it is known, for checks that only use it in passing. */
export async function lastSeenAfterIfKnown(t: CheckContext, list: List): Promise<FilterName | undefined> {
  const found = await findLastSeen(t, list).catch(() => undefined);
  return found && 'param' in found ? found : undefined;
}

/** How a filter's name was learned, for messages. */
export function origin(name: FilterName): string {
  return name.source === 'profile' ? 'the profile' : name.source === 'openapi' ? "the server's OpenAPI document" : 'probing';
}
