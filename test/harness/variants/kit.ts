/**
 * What the deliberately broken variants are made of. A variant wraps the real API's
 * `fetch(Request) → Response` and bends requests or responses so that exactly one rule of the
 * spec no longer holds; the harness must then fail at least one check. Web APIs only, so the
 * variants run wherever the core does.
 */
import type { Api } from '../../../core/index.ts';

/** Anything with the Fetch-API shape, as the runtime adapters serve it. */
export interface FetchHandler {
  fetch(request: Request): Promise<Response>;
}

/** A broken variant of the API. */
export interface Variant {
  /** Stable identifier, kebab-case. */
  id: string;
  /** The one spec rule this variant breaks, as a sentence. */
  rule: string;
  /** Check-id prefixes that should catch it; a test may run only these to stay fast. */
  only: string[];
  /** Only `destructive` checks can see it (e.g. it changes the 429 that spends the hour). */
  destructive?: boolean;
  /** Only `slow` checks can see it (it waits on the server's clock). */
  slow?: boolean;
  /** Wraps the real API into the broken one. Each call gives a fresh wrapper with its own memory. */
  wrap(api: Api): FetchHandler;
}

/** The parts of a request a variant may change; the body is read whole (requests here are small). */
export interface RequestChanges {
  url?: URL;
  headers?: Headers;
  body?: string | null;
}

/** A copy of the request with some parts replaced. */
export async function rebuild(request: Request, changes: RequestChanges): Promise<Request> {
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const body = changes.body !== undefined ? changes.body : hasBody ? await request.text() : null;
  const headers = new Headers(changes.headers ?? request.headers);
  headers.delete('content-length');
  return new Request(changes.url ?? request.url, { method: request.method, headers, body: hasBody ? body : null });
}

/** A copy of the request with its query changed in place by `edit`. */
export function withQuery(request: Request, edit: (params: URLSearchParams) => void): Promise<Request> {
  const url = new URL(request.url);
  edit(url.searchParams);
  return rebuild(request, { url });
}

/** A copy of the request sent with another API key (null: none). */
export function withKey(request: Request, key: string | null): Promise<Request> {
  const headers = new Headers(request.headers);
  if (key === null) headers.delete('x-api-key');
  else headers.set('x-api-key', key);
  return rebuild(request, { headers });
}

/** A copy of the response with its headers changed by `edit`; status and body kept. */
export function withHeaders(response: Response, edit: (headers: Headers) => void): Response {
  const headers = new Headers(response.headers);
  edit(headers);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** A copy of the response with a new body text (and optionally status); headers kept. */
export function withText(response: Response, text: string, status = response.status): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(text, { status, statusText: status === response.status ? response.statusText : '', headers });
}

/** Reads a JSON response; non-JSON responses come back untouched as `null`. */
export async function readJson(response: Response): Promise<{ body: any; text: string } | null> {
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return null;
  const text = await response.clone().text();
  try {
    return { body: JSON.parse(text), text };
  } catch {
    return null;
  }
}

/** A copy of a JSON response whose body went through `edit` (which may change it in place or return a new one). */
export async function mapJson(response: Response, edit: (body: any) => any): Promise<Response> {
  const read = await readJson(response);
  if (!read) return response;
  const changed = edit(read.body);
  return withText(response, JSON.stringify(changed === undefined ? read.body : changed));
}

/** Which endpoint a path is, by the spec's table. */
export type Endpoint = 'health' | 'people' | 'person' | 'events' | 'companies' | 'company' | 'stats' | 'exports' | 'export' | 'download' | 'other';

/** The endpoint of a request, plus its path parameter when it has one. */
export function endpointOf(request: Request): { endpoint: Endpoint; id?: string } {
  const path = new URL(request.url).pathname.replace(/\/+$/, '');
  const parts = path.split('/').slice(1);
  if (parts[0] !== 'v1') return { endpoint: 'other' };
  const [, a, b, c, d] = parts;
  if (a === 'health' && b === undefined) return { endpoint: 'health' };
  if (a === 'stats' && b === undefined) return { endpoint: 'stats' };
  if (a === 'people') {
    if (b === undefined) return { endpoint: 'people' };
    if (c === undefined) return { endpoint: 'person', id: b };
    if (c === 'events' && d === undefined) return { endpoint: 'events', id: b };
  }
  if (a === 'companies') {
    if (b === undefined) return { endpoint: 'companies' };
    if (c === undefined) return { endpoint: 'company', id: b };
  }
  if (a === 'exports') {
    if (b === undefined) return { endpoint: 'exports' };
    if (c === undefined) return { endpoint: 'export', id: b };
    if (c === 'download' && d === undefined) return { endpoint: 'download', id: b };
  }
  return { endpoint: 'other' };
}

/** Whether the request is for one of the three list endpoints. */
export function isList(request: Request): boolean {
  const { endpoint } = endpointOf(request);
  return endpoint === 'people' || endpoint === 'companies' || endpoint === 'events';
}

/** Which keys a wrapper has met: what each reads, and an account key to act with behind the caller's back. */
export class Keys {
  readonly #info = new Map<string, Promise<{ accountId: string; domain: string | null } | null>>();
  readonly #accountKeys = new Map<string, Promise<string>>();

  constructor(private readonly api: Api) {}

  /** What the request's key reads, or null for no key or one that is not valid. */
  of(request: Request): Promise<{ accountId: string; domain: string | null } | null> {
    const key = request.headers.get('x-api-key');
    if (!key) return Promise.resolve(null);
    let info = this.#info.get(key);
    if (!info) {
      info = this.api.admin.describeKey(key).then((k) => (k ? { accountId: k.accountId, domain: k.domain } : null));
      this.#info.set(key, info);
    }
    return info;
  }

  /** Whether the request carries a valid domain-scoped key. */
  async isScoped(request: Request): Promise<boolean> {
    return Boolean((await this.of(request))?.domain);
  }

  /** An account key of the request's account (issued once per account), or null when its key is not valid. */
  async accountKeyFor(request: Request): Promise<string | null> {
    const info = await this.of(request);
    if (!info) return null;
    let key = this.#accountKeys.get(info.accountId);
    if (!key) {
      key = this.api.admin.issueAccountKey(info.accountId, { label: 'broken variant' }).then((k) => k.key);
      this.#accountKeys.set(info.accountId, key);
    }
    return key;
  }
}

/** The error envelope the API answers with, for variants that answer themselves. */
export function errorBody(status: number, code: string, message: string): string {
  return JSON.stringify({ error: { code, message, status } });
}
