import { Webhook } from 'standardwebhooks';

/**
 * Deliveries as a sender makes them, signed with the Standard Webhooks reference library (not the
 * core's signer), and POSTed over real HTTP to a receiver.
 */
export const SECRET = `whsec_${btoa('r'.repeat(32))}`;

/** A well-formed person.activity payload of two events under `webhookId`, sent at `sentAt`. */
export function activityPayload(webhookId: string, sentAt = new Date(), events = 2): any {
  const base = sentAt.getTime() - 60_000;
  return {
    webhookId,
    event: 'person.activity',
    timestamp: sentAt.toISOString(),
    domain: 'alpha.example',
    clientRef: 'alpha',
    data: {
      person: { id: 'per_ada', email: 'ada@partner.example' },
      events: Array.from({ length: events }, (_, i) => ({ eventType: 'page_view', timestamp: new Date(base + i * 1000).toISOString(), url: 'https://alpha.example/', domain: 'alpha.example' })),
      eventCount: events,
      truncated: false,
    },
  };
}

/** A well-formed person.identified payload under `webhookId`. */
export function identifiedPayload(webhookId: string, sentAt = new Date()): any {
  return { webhookId, event: 'person.identified', timestamp: sentAt.toISOString(), domain: 'alpha.example', clientRef: 'alpha', data: { person: { id: 'per_ada', email: 'ada@partner.example' } } };
}

/** The Standard Webhooks headers of `body` under `webhookId`, signed at `at`. */
export function signed(webhookId: string, body: string, at = new Date(), secret = SECRET): Record<string, string> {
  const signature = new Webhook(secret).sign(webhookId, at, body);
  return { 'content-type': 'application/json', 'webhook-id': webhookId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * A `webhook-signature` value with each base64 MAC written non-canonically: the character before
 * the `=` keeps two bits no byte uses, and one is set. A lenient decoder reads the same bytes (the
 * core's verifier accepts it); a Standard Webhooks receiver compares the text and refuses it.
 */
export function misencoded(signatures: string): string {
  return signatures.split(' ').map((signature) => {
    const last = signature.length - 2;
    return `${signature.slice(0, last)}${BASE64[BASE64.indexOf(signature[last]!) ^ 1]}${signature.slice(last + 1)}`;
  }).join(' ');
}

/** POSTs a delivery (signed when no headers are given) and resolves with the status and the answer's text. */
export async function post(url: string, payload: unknown, headers?: Record<string, string>): Promise<{ status: number; text: string }> {
  const body = JSON.stringify(payload);
  const id = (payload as { webhookId: string }).webhookId;
  const response = await fetch(url, { method: 'POST', headers: headers ?? signed(id, body), body });
  return { status: response.status, text: await response.text() };
}
