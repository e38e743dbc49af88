import type { ErrorBody } from '../../core/resources/types.ts';

/** The mount point the console was served under ('' at the root): the API's routes sit beside it. */
export const BASE = location.pathname.replace(/\/_console\/.*$/, '');

const TOKEN = 'vi-console-token';

/** Takes the admin token from a `#token=…` link into this tab's session, and out of the address bar. */
export function adoptTokenFromLink(): void {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (!match) return;
  sessionStorage.setItem(TOKEN, decodeURIComponent(match[1]!));
  history.replaceState(null, '', `${location.pathname}#/people`);
}

export function adminToken(): string | null {
  return sessionStorage.getItem(TOKEN);
}

export function signIn(token: string): void {
  sessionStorage.setItem(TOKEN, token);
}

/** A refusal of the API, with its error object's code and message. */
export class CallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  const response = await fetch(`${BASE}${path}`, init);
  const text = await response.text();
  const body = text === '' ? {} : JSON.parse(text);
  if (!response.ok) {
    const error = (body as ErrorBody).error ?? { code: 'unknown', message: `HTTP ${response.status}` };
    throw new CallError(response.status, error.code, error.message);
  }
  return body as T;
}

/** An admin route, with the session's token. */
export function admin<T>(method: string, path: string, body?: unknown): Promise<{ data: T; nextBefore?: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${adminToken() ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return call(`/_admin${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A `/v1/` route with an API key. */
export function v1<T>(method: string, path: string, key: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'x-api-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return call(`/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A query string from the set values of `params`. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '' && value !== false) search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
