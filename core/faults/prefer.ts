/** The longest injected delay, in milliseconds: a longer one is cut to this. */
export const MAX_DELAY_MS = 30_000;

/** What a `Prefer` header asks of the fault injector. */
export interface Preferences {
  fault?: string;
  delayMs?: number;
}

/**
 * Reads `fault=<name>` and `delay=<ms>` from `Prefer` headers (RFC 7240: comma-separated
 * preferences, each `token[=value]` with optional `;` parameters, values optionally quoted).
 * Preferences it does not know, or cannot read, are ignored, as the RFC asks of servers.
 */
export function readPreferences(header: string | null): Preferences {
  const out: Preferences = {};
  if (!header) return out;
  for (const part of header.split(',')) {
    const [head] = part.split(';');
    const eq = head!.indexOf('=');
    if (eq < 0) continue;
    const name = head!.slice(0, eq).trim().toLowerCase();
    const value = head!.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'fault' && /^[a-z_]{1,64}$/.test(value)) out.fault = value;
    if (name === 'delay' && /^\d{1,9}$/.test(value)) out.delayMs = Math.min(Number(value), MAX_DELAY_MS);
  }
  return out;
}
