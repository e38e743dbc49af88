import type { ErrorBody } from '../../core/index.ts';

/** A parsed response. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small client over a target's `call`, sending the key it is given. */
export function clientFor(call: (path: string, init?: RequestInit) => Promise<Response>) {
  return {
    async get<T = any>(path: string, key?: string, headers: Record<string, string> = {}): Promise<Reply<T>> {
      const res = await call(path, { headers: key === undefined ? headers : { 'x-api-key': key, ...headers } });
      return { status: res.status, headers: res.headers, body: (await res.json()) as T };
    },
    async send<T = any>(method: string, path: string, key?: string, body?: string, headers: Record<string, string> = {}): Promise<Reply<T>> {
      const res = await call(path, { method, body, headers: key === undefined ? headers : { 'x-api-key': key, ...headers } });
      return { status: res.status, headers: res.headers, body: (await res.json()) as T };
    },
    /** Follows nextCursor to the end and returns every row, failing on a loop. */
    async walk<T = any>(path: string, key: string, limit = 100): Promise<{ rows: T[]; pages: number }> {
      const rows: T[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const sep = path.includes('?') ? '&' : '?';
        const reply = await this.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
        if (reply.status !== 200) throw new Error(`page ${pages} of ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        rows.push(...reply.body.data);
        cursor = reply.body.pagination.nextCursor;
        if (++pages > 10_000) throw new Error('paging does not end');
      } while (cursor);
      return { rows, pages };
    },
  };
}

/** Asserts the shape of the error envelope and returns its code. */
export function errorCode(reply: Reply<ErrorBody>): string {
  const { error } = reply.body;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || error.status !== reply.status) {
    throw new Error(`not an error envelope for ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return error.code;
}
