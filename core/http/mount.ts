/**
 * Where an adapter mounted the API (`x-forwarded-prefix`, e.g. `/api`), or '' at the root.
 * Adapters set the header and drop a client's own; a value that is not a plain path is ignored.
 */
export function mountPrefix(request: Request): string {
  const prefix = request.headers.get('x-forwarded-prefix') ?? '';
  return /^(\/[\w.~-]+)+$/.test(prefix) ? prefix : '';
}

/** The path after the mount point, or null when the path lies outside it. */
export function routedPath(pathname: string, prefix: string): string | null {
  if (prefix === '') return pathname;
  if (pathname === prefix) return '/';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : null;
}
