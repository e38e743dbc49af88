import { ApiError, quoteInput, quoteName } from '../http/errors.ts';
import { Reply } from '../http/reply.ts';

/** Where the console lives, relative to the mount point like `/v1/`. */
export const CONSOLE_PATH = '/_console';

/** Whether `path` (already relative to the mount point) is the console's. */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}

// The page only loads its own scripts and styles and talks to its own origin; it is framed by no one.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Answers a console path from the embedded assets. The pages are revalidated on every load, so a
 * new server's pages name its new assets; those carry their content hash and never change.
 */
export async function consoleReply(method: string, path: string, prefix: string, ifNoneMatch: string | null): Promise<Reply> {
  if (method !== 'GET' && method !== 'HEAD') {
    throw new ApiError(405, 'method_not_allowed', `Method ${quoteName(method)} is not allowed on ${quoteInput(path)}; allowed: GET, HEAD.`, { allow: 'GET, HEAD' });
  }
  // Relative asset links only resolve from the directory, so the bare path moves there.
  if (path === CONSOLE_PATH) return new Reply(308, null, { location: `${prefix}${CONSOLE_PATH}/` });
  const name = path.slice(CONSOLE_PATH.length + 1) || 'index.html';
  // Loaded on first use: the renderer of the API reference makes it large, and most APIs never serve it.
  const { CONSOLE_ASSETS } = await import('./assets.ts');
  const asset = Object.hasOwn(CONSOLE_ASSETS, name) ? CONSOLE_ASSETS[name] : undefined;
  if (!asset) throw new ApiError(404, 'not_found', `No console file at ${quoteInput(path)}.`);
  const cache = name.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable';
  const etag = `"${asset.hash}"`;
  const headers = { 'content-type': asset.type, 'cache-control': cache, etag, ...SECURITY_HEADERS };
  // A revalidated page the browser already holds costs no body.
  if (ifNoneMatch !== null && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) return new Reply(304, null, headers);
  return new Reply(200, method === 'HEAD' ? null : asset.body, headers);
}
