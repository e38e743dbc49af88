import { Webhook } from 'standardwebhooks';

/**
 * A delivery's signature judged as a Standard Webhooks receiver judges it, by the standard's
 * reference library rather than the core's signer: a fault the core made alike when signing and
 * verifying would otherwise pass the examiner unseen.
 */

/** The outcome of {@link checkSignature}: the parsed payload, or why the delivery is not genuine. */
export type SignatureCheck = { ok: true; payload: unknown } | { ok: false; reason: string };

/**
 * Checks the three headers, the timestamp within `toleranceSeconds` of `nowSeconds`, and that one
 * of the `v1` signatures is the one the reference library makes under one of `secrets`. The
 * library's own `verify` reads the wall clock, so freshness is judged here against the caller's.
 */
export function checkSignature(secrets: string[], header: (name: string) => string | undefined, body: string, nowSeconds: number, toleranceSeconds: number): SignatureCheck {
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signature = header('webhook-signature');
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: `webhook-timestamp ${JSON.stringify(timestamp.slice(0, 40))} is not whole seconds` };
  const skew = nowSeconds - Number(timestamp);
  if (Math.abs(skew) > toleranceSeconds) return { ok: false, reason: `webhook-timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'old' : 'in the future'} (tolerance ${toleranceSeconds} s)` };
  const sent = signature.split(' ');
  for (const [i, secret] of secrets.entries()) {
    let expected: string;
    try {
      // The library signs the number of seconds, not the header's text: a padded timestamp cannot match.
      expected = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body);
    } catch (error) {
      return { ok: false, reason: `secret ${i + 1} is not a usable whsec_ secret (${error instanceof Error ? error.message : String(error)})` };
    }
    // Compared as text, as the reference does: a base64 that decodes alike but reads otherwise is not the signature.
    if (!sent.includes(expected)) continue;
    try {
      return { ok: true, payload: JSON.parse(body) };
    } catch {
      return { ok: false, reason: 'the body is signed but is not JSON' };
    }
  }
  return { ok: false, reason: 'no signature matches the secret' };
}
