/**
 * Standard Webhooks signing with WebCrypto only: `webhook-signature` is `v1,<base64 HMAC-SHA256>`
 * of `{id}.{timestamp}.{body}`, keyed with the bytes the `whsec_` secret encodes.
 */
import { base64ToBytes, bytesToBase64 } from '../crypto/base64.ts';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = { min: 24, max: 64, generated: 32 } as const;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A fresh secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + bytesToBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES.generated)));
}

/** Why a secret is unusable, or undefined when it is a `whsec_` secret of 24–64 bytes. */
export function secretProblem(secret: unknown): string | undefined {
  const shape = `must be ${SECRET_PREFIX} followed by the base64 of ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes`;
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) return shape;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return `${shape} (it is not base64)`;
  const bytes = base64ToBytes(encoded).length;
  if (bytes < SECRET_BYTES.min || bytes > SECRET_BYTES.max) return `${shape} (it encodes ${bytes})`;
  return undefined;
}

const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key of a secret, imported once (a handful of secrets are live at a time). */
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 256) keys.clear();
    const raw = base64ToBytes(secret.slice(SECRET_PREFIX.length));
    key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

/** One `v1,<base64>` signature of a delivery under one secret. */
export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await keyOf(secret), new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${bytesToBase64(new Uint8Array(mac))}`;
}

/** What a delivery is sent with: the three Standard Webhooks headers plus the content type. */
export type WebhookHeaders = {
  'content-type': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  /** `v1,<base64>`, one per live secret, space-separated. */
  'webhook-signature': string;
};

/** The three Standard Webhooks headers plus the content type; several secrets give space-separated signatures. */
export async function webhookHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Promise<WebhookHeaders> {
  const signatures = await Promise.all(secrets.map((s) => signWebhook(s, id, timestampSeconds, body)));
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

/** The outcome of {@link verifyWebhook}: the parsed payload, or why the delivery is not genuine. */
export type Verification = { ok: true; payload: unknown } | { ok: false; reason: string };

/**
 * Checks a delivery as a receiver should: the three headers present, the timestamp within
 * `toleranceSeconds` of `nowSeconds` (default 5 minutes), and a `v1` signature made with one of the
 * secrets over the raw body (compared in constant time by WebCrypto). For receivers without the
 * `standardwebhooks` package; the harness and `webhooks listen` judge with that package instead.
 */
export async function verifyWebhook(
  secrets: string[],
  headers: Record<string, string | undefined> | Headers,
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): Promise<Verification> {
  const header = (name: string) => (headers instanceof Headers ? (headers.get(name) ?? undefined) : headers[name]);
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signature = header('webhook-signature');
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  // Only the canonical spelling: a zero-padded timestamp is signed as other text than its number.
  if (!/^(0|[1-9]\d{0,11})$/.test(timestamp)) return { ok: false, reason: `webhook-timestamp ${JSON.stringify(timestamp.slice(0, 40))} is not whole seconds` };
  const skew = nowSeconds - Number(timestamp);
  if (Math.abs(skew) > toleranceSeconds) return { ok: false, reason: `webhook-timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'old' : 'in the future'} (tolerance ${toleranceSeconds} s)` };
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const candidates = signature.split(' ').filter((s) => s.startsWith('v1,')).map((s) => s.slice(3));
  for (const secret of secrets) {
    if (secretProblem(secret)) return { ok: false, reason: `secret ${secretProblem(secret)}` };
    for (const candidate of candidates) {
      // Only the canonical encoding (no stray bits past the last byte), as the standard's reference library compares text.
      if (!BASE64.test(candidate) || candidate.length % 4 !== 0 || bytesToBase64(base64ToBytes(candidate)) !== candidate) continue;
      if (await crypto.subtle.verify('HMAC', await keyOf(secret), base64ToBytes(candidate), signed)) {
        try {
          return { ok: true, payload: JSON.parse(body) };
        } catch {
          return { ok: false, reason: 'the body is signed but is not JSON' };
        }
      }
    }
  }
  return { ok: false, reason: 'no signature matches the secret' };
}
