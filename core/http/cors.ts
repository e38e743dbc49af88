/**
 * CORS for browser clients, off unless configured. Preflights of allowed origins are answered
 * here, before routing and keys (a browser sends no key with them), and actual responses to
 * allowed origins carry the headers a browser needs to read them. Other origins get no CORS
 * headers at all, so the browser keeps their scripts from reading anything.
 */
import { Reply, type CoreRequest } from './reply.ts';

/** Which browser origins may call the API. */
export interface CorsOptions {
  /**
   * Exact origins (`https://app.example`, scheme and port included), patterns whose leftmost
   * label is `*` (`https://*.app.example`: any subdomain of app.example, one level or more, over
   * that scheme and port; not app.example itself), or `'*'` for any.
   */
  origins: readonly string[] | '*';
  /** How long a browser may cache a preflight's answer, in seconds. Default 7200 (Chromium's ceiling). */
  maxAgeSeconds?: number;
}

/** Request headers a browser client may send: the key, a JSON body's type, a bearer token, and fault injection's Prefer. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-API-Key, Prefer';
/** Response headers a browser script may read beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Content-Disposition, Preference-Applied';

/** The CORS behaviour of one API. */
export interface Cors {
  /** The answer to a browser preflight from an allowed origin, or undefined for any other request. */
  preflight(request: CoreRequest): Reply | undefined;
  /** Adds the CORS headers an actual response to an allowed origin carries. */
  decorate(request: CoreRequest, reply: Reply): Reply;
}

/** Builds the CORS behaviour for `options`, allowing `methods` in preflights; undefined when CORS is off. */
export function createCors(options: CorsOptions | undefined, methods: readonly string[]): Cors | undefined {
  if (!options) return undefined;
  const any = options.origins === '*';
  const configured = any ? [] : (options.origins as readonly string[]).map(normalizeOrigin);
  const origins = new Set(configured.filter((origin) => !origin.includes('*')));
  const subdomainsOf = configured.filter((origin) => origin.includes('*')).map(wildcardParts);
  const maxAge = String(options.maxAgeSeconds ?? 7200);
  const allowMethods = [...new Set(methods)].join(', ');
  const allowedOrigin = (request: CoreRequest): string | undefined => {
    const origin = request.headers.get('origin');
    if (origin === null) return undefined;
    if (any) return '*';
    return origins.has(origin) || subdomainsOf.some((parts) => isSubdomainOrigin(origin, parts)) ? origin : undefined;
  };
  return {
    preflight(request) {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return undefined;
      const origin = allowedOrigin(request);
      if (origin === undefined) return undefined;
      return new Reply(204, null, {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': allowMethods,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': maxAge,
        vary: 'Origin',
      });
    },
    decorate(request, reply) {
      // Caches must not hand one origin's answer to another, whether or not this one was allowed.
      if (!any) reply.headers.append('vary', 'Origin');
      const origin = allowedOrigin(request);
      if (origin === undefined) return reply;
      reply.headers.set('access-control-allow-origin', origin);
      reply.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      return reply;
    },
  };
}

/**
 * An origin as browsers send it (`scheme://host[:port]`, lower case, default port dropped), or
 * a TypeError naming the value: a configured origin that browsers can never send would allow nobody.
 * A `*` may only be the whole leftmost label over a domain of two labels or more, so no pattern
 * stands for a whole top-level domain.
 */
export function normalizeOrigin(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const bare = url && /^https?:$/.test(url.protocol) && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  const star = url && url.hostname.includes('*') && !/^\*(\.[^.*]+){2,}$/.test(url.hostname);
  if (!url || !bare || star) {
    throw new TypeError(
      `CORS origin ${JSON.stringify(value)} is not an origin such as https://app.example or http://localhost:3000, nor a pattern such as https://*.app.example`,
    );
  }
  return url.origin;
}

/** A normalized `scheme://*.domain[:port]` pattern as the text before and after its `*`. */
function wildcardParts(pattern: string): { prefix: string; suffix: string } {
  const star = pattern.indexOf('*');
  return { prefix: pattern.slice(0, star), suffix: pattern.slice(star + 1) };
}

/** Whether `origin` is `prefix`, one or more whole host labels, then `suffix` (`.domain[:port]`). */
function isSubdomainOrigin(origin: string, { prefix, suffix }: { prefix: string; suffix: string }): boolean {
  if (origin.length <= prefix.length + suffix.length || !origin.startsWith(prefix) || !origin.endsWith(suffix)) return false;
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(origin.slice(prefix.length, origin.length - suffix.length));
}
