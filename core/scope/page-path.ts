/**
 * The page path of a URL as the `pages` export filter compares it: the pathname without a
 * trailing slash (`/` stays `/`), no query or fragment. Text that is not a URL is taken as a path.
 */
export function pagePath(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? url;
  }
  if (!path.startsWith('/')) path = `/${path}`;
  return path.length > 1 ? path.replace(/\/+$/, '') || '/' : path;
}
