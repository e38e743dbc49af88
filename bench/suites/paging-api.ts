/**
 * The API as the paging suites call it: in-process `api.fetch`, the benchmark's clock, and limits
 * set so high that no run ever sees a 429 (the limiter still counts every request).
 */
import { createApi, ManualClock, type Api } from '../../adapters/node/index.ts';
import { BENCH_ANCHOR } from '../data.ts';
import { UNLIMITED } from '../servers/api-options.ts';

/** Base of the request URLs; in-process, the host is never resolved. */
const ORIGIN = 'http://bench.local';

/** Opens the benchmark database through the Node adapter. */
export function openBenchApi(path: string): Promise<Api> {
  // The clock stands on the data's anchor, so cursors never expire mid-run and date filters select what they should.
  return createApi({ database: path, clock: new ManualClock(BENCH_ANCHOR), rateLimits: UNLIMITED });
}

/** GETs `pathAndQuery` with `key` and returns the body text; anything but 200 is a broken benchmark. */
export async function getText(api: Api, key: string, pathAndQuery: string): Promise<string> {
  const res = await api.fetch(new Request(ORIGIN + pathAndQuery, { headers: { 'x-api-key': key } }));
  // Reading the body is part of the cost: a Response nobody reads has delivered nothing.
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** `…&cursor=…` for a cursor, or nothing. */
export function cursorParam(cursor: string | undefined): string {
  return cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
}

/**
 * The `nextCursor` of a page body. Every body here ends with its pagination object, so only that
 * tail is parsed: parsing the whole page would charge the walk for work a client may not do.
 */
export function nextCursorOf(body: string): string | undefined {
  const at = body.lastIndexOf('"pagination":');
  if (at < 0) throw new Error('page body has no pagination');
  const pagination = JSON.parse(body.slice(at + '"pagination":'.length, -1)) as { nextCursor?: string };
  return pagination.nextCursor;
}
