import { admin, CallError, v1 } from './api.ts';

/** Who the console reads the API as: the account's key or one site's scoped key. */
export interface Viewer {
  accountId: string;
  /** null for the account key. */
  domain: string | null;
}

const stored = (viewer: Viewer) => `vi-console-key:${viewer.accountId}:${viewer.domain ?? '*'}`;

/** The key this tab holds for `viewer`, if any. */
export function knownKey(viewer: Viewer): string | null {
  return sessionStorage.getItem(stored(viewer));
}

/** Keeps a key the user pasted (a site holds one active scoped key: its owner has the value). */
export function rememberKey(viewer: Viewer, key: string): void {
  sessionStorage.setItem(stored(viewer), key);
}

/**
 * The key the console reads as `viewer`. The admin routes never show an existing key's value, so
 * the console issues its own (labelled `console`) once per tab and viewer, and again after a reset;
 * a site that already has its active key refuses another, and its key must be pasted.
 */
async function keyFor(viewer: Viewer, fresh = false): Promise<string> {
  const known = knownKey(viewer);
  if (known && !fresh) return known;
  const body = viewer.domain === null ? { label: 'console' } : { label: 'console', domain: viewer.domain };
  const { data } = await admin<{ key: string }>('POST', `/accounts/${encodeURIComponent(viewer.accountId)}/keys`, body);
  rememberKey(viewer, data.key);
  return data.key;
}

/** The account key the console reads with (for the API reference's "Try it out"). */
export function accountKey(accountId: string): Promise<string> {
  return keyFor({ accountId, domain: null });
}

/** Whether the console can read as `viewer`: a key it holds or can issue; false when one must be pasted. */
export async function canRead(viewer: Viewer): Promise<boolean> {
  try {
    await keyFor(viewer);
    return true;
  } catch (error) {
    if (error instanceof CallError && error.status === 400 && viewer.domain !== null) return false;
    throw error;
  }
}

/** A `/v1/` call as `viewer`; a key a reset took away is issued again once. */
export async function read<T>(viewer: Viewer, method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await v1<T>(method, path, await keyFor(viewer), body);
  } catch (error) {
    // An unknown key (one a reset took away) is refused as forbidden, a missing one as unauthorized.
    if (!(error instanceof CallError) || (error.code !== 'forbidden' && error.code !== 'unauthorized')) throw error;
    return v1<T>(method, path, await keyFor(viewer, true), body);
  }
}
