import type { CoreRequest } from './reply.ts';

/** The header through which an adapter tells the core where it mounted the API. */
export const MOUNT_HEADER = 'x-forwarded-prefix';

/**
 * Where an adapter mounted the API (e.g. `/api`), or '' at the root. Adapters set the header
 * and drop a client's own (see {@link atMountPoint}); a value that is not a plain path is ignored.
 */
export function mountPrefix(request: CoreRequest): string {
  const prefix = request.headers.get(MOUNT_HEADER) ?? '';
  return /^(\/[\w.~-]+)+$/.test(prefix) ? prefix : '';
}

/**
 * The request as the core should see it when served at `mountedAt` ('' for the root): any mount
 * header a client sent is replaced, so a client cannot move the API's routes or its download
 * links. Every server that hands client requests to `api.fetch` passes them through this.
 */
export function atMountPoint(request: Request, mountedAt = ''): Request {
  if (mountedAt === '' && !request.headers.has(MOUNT_HEADER)) return request;
  const headers = new Headers(request.headers);
  if (mountedAt === '') headers.delete(MOUNT_HEADER);
  else headers.set(MOUNT_HEADER, mountedAt);
  return new Request(request, { headers });
}

/** The path after the mount point, or null when the path lies outside it. */
export function routedPath(pathname: string, prefix: string): string | null {
  if (prefix === '') return pathname;
  if (pathname === prefix) return '/';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : null;
}
