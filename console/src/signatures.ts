import type { WebhookHeaders } from '../../core/webhooks/signing.ts';

/*
 * The inbox checks each attempt's signature in the browser, as a receiver holding the secret
 * would, with WebCrypto and none of the server's signing code: the signer does not vouch for itself.
 */

const stored = (endpointId: string) => `vi-console-secrets:${endpointId}`;

/** The signing secrets this tab holds for an endpoint, newest first. */
export function knownSecrets(endpointId: string): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(stored(endpointId)) ?? '[]');
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Keeps a secret this tab saw (an endpoint created or rotated here) or was given. Older ones stay
 * a while: attempts made before a rotation were signed with them.
 */
export function rememberSecret(endpointId: string, secret: string): void {
  const secrets = [secret, ...knownSecrets(endpointId).filter((s) => s !== secret)].slice(0, 5);
  sessionStorage.setItem(stored(endpointId), JSON.stringify(secrets));
}

/** What checking an attempt's signature came to. */
export type Verdict = 'verifies' | 'does not verify' | 'no secret to check with' | 'not logged' | 'cannot check here';

const PREFIX = 'whsec_';

/**
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64>` signatures, each the
 * HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the bytes a `whsec_` secret
 * encodes. The attempt verifies when one of them matches one of the secrets. The timestamp's age is
 * not judged: these are past attempts, not arriving ones.
 */
export async function verdictOf(secrets: string[], headers: WebhookHeaders | null, body: string | undefined): Promise<Verdict> {
  if (headers === null || body === undefined) return 'not logged';
  if (secrets.length === 0) return 'no secret to check with';
  // WebCrypto is there only in secure contexts: https, or http on localhost.
  if (!globalThis.crypto?.subtle) return 'cannot check here';
  const signed = new TextEncoder().encode(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`);
  const candidates = headers['webhook-signature'].split(' ').filter((s) => s.startsWith('v1,')).map((s) => bytes(s.slice(3)));
  for (const secret of secrets) {
    const raw = secret.startsWith(PREFIX) ? bytes(secret.slice(PREFIX.length)) : null;
    if (!raw) continue;
    const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const candidate of candidates) if (candidate && (await crypto.subtle.verify('HMAC', key, candidate, signed))) return 'verifies';
  }
  return 'does not verify';
}

/** The bytes of base64 text, or null when it is not base64. */
function bytes(base64: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
