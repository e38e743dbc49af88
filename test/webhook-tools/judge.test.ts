import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../core/webhooks/signing.ts';
import { judgeDelivery } from '../../harness/webhooks/index.ts';
import { misencoded, signed } from './signed.ts';

const SECRET = `whsec_${btoa('j'.repeat(32))}`;
const NOW = 1_795_000_000;
/** Standard Webhooks headers signed by the reference library at `seconds`. */
const headersAt = (id: string, body: string, seconds = NOW) => signed(id, body, new Date(seconds * 1000), SECRET);

function activity(): any {
  return {
    webhookId: 'msg_1',
    event: 'person.activity',
    timestamp: '2026-11-23T08:00:00Z',
    domain: 'alpha.example',
    clientRef: 'alpha',
    data: {
      person: { id: 'per_1', email: null },
      events: [
        { eventId: 'evt_1', eventType: 'page_view', timestamp: '2026-11-23T07:59:00Z', url: 'https://alpha.example/', domain: 'alpha.example' },
        { eventId: 'evt_2', eventType: 'click', clickElement: 'a.cta', timestamp: '2026-11-23T07:59:30Z', url: 'https://alpha.example/', domain: 'alpha.example' },
      ],
      eventCount: 2,
      truncated: false,
    },
  };
}

/** Signs a payload as a sender would and judges it. */
async function judge(payload: unknown, id = 'msg_1') {
  const body = JSON.stringify(payload);
  return judgeDelivery([SECRET], { headers: headersAt(id, body), body }, NOW);
}

describe('judging one delivery', () => {
  it('passes a well-formed person.activity delivery on every statement that concerns it', async () => {
    const judged = await judge(activity());
    expect(judged.status).toBe(200);
    expect(judged.problems).toEqual([]);
    expect(Object.keys(judged.outcomes).sort()).toEqual(['webhooks.activity-order', 'webhooks.activity-shape', 'webhooks.envelope', 'webhooks.event-count', 'webhooks.signature', 'webhooks.single-site', 'webhooks.truncated']);
  });

  it('names each broken statement: a click without clickElement, an event of another site, a payload id unlike the header', async () => {
    const clickless = activity();
    delete clickless.data.events[1].clickElement;
    expect((await judge(clickless)).problems).toEqual(['webhooks.activity-shape: data.events[1] is a click without a string clickElement']);
    const mixed = activity();
    mixed.data.events[0].domain = 'beta.example';
    expect((await judge(mixed)).problems).toEqual(['webhooks.single-site: data.events[0].domain is "beta.example", the delivery\'s domain "alpha.example"']);
    const judged = await judge(activity(), 'msg_other');
    expect(judged.status).toBe(400);
    expect(judged.problems).toEqual(['webhooks.envelope: webhookId "msg_1" differs from the webhook-id header "msg_other"']);
  });

  it('checks person.identified for a data.person with an id, and a clientRef that is present', async () => {
    const identified = { ...activity(), event: 'person.identified', data: { person: { id: 'per_1', email: 'a@b.example', firstName: 'Ada' } } };
    const ok = await judge(identified);
    expect(ok.problems).toEqual([]);
    expect(ok.outcomes['webhooks.identified-shape']).toBeNull();
    expect(ok.outcomes['webhooks.event-count']).toBeUndefined();
    expect((await judge({ ...identified, data: { person: { email: 'a@b.example' } } })).problems).toEqual(['webhooks.identified-shape: data.person must be an object with a string id']);
    const { clientRef: _, ...withoutRef } = identified;
    expect((await judge(withoutRef)).problems).toEqual(['webhooks.envelope: clientRef must be present, a string (or null for a site without a label)']);
  });

  it('refuses a stale timestamp and judges nothing else of it', async () => {
    const body = JSON.stringify(activity());
    const judged = await judgeDelivery([SECRET], { headers: headersAt('msg_1', body, NOW - 600), body }, NOW);
    expect(judged.status).toBe(401);
    expect(judged.problems).toEqual(['webhooks.signature: webhook-timestamp is 600 s old (tolerance 300 s)']);
    expect(Object.keys(judged.outcomes)).toEqual(['webhooks.signature']);
  });
});

/**
 * Signatures a sender can get subtly wrong in ways a verifier written alongside the signer may
 * share. A Standard Webhooks receiver refuses each, so the harness, judging as that receiver with
 * the standard's own library, must too; so does the verifier this package exports.
 */
describe('judging signatures apart from the core', () => {
  it('refuses a signature in non-canonical base64 (junk in the bits the padding leaves over)', async () => {
    const body = JSON.stringify(activity());
    const headers = headersAt('msg_1', body);
    const junk = { ...headers, 'webhook-signature': misencoded(headers['webhook-signature']!) };
    expect(junk['webhook-signature']).not.toBe(headers['webhook-signature']);
    expect(await verifyWebhook([SECRET], junk, body, NOW)).toMatchObject({ ok: false });
    const judged = await judgeDelivery([SECRET], { headers: junk, body }, NOW);
    expect(judged.status).toBe(401);
    expect(judged.problems).toEqual(['webhooks.signature: no signature matches the secret']);
  });

  it('refuses a signature over a zero-padded timestamp, which receivers sign as the plain number', async () => {
    const body = JSON.stringify(activity());
    const timestamp = `0${NOW}`;
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`msg_1.${timestamp}.${body}`).digest('base64');
    const padded = { 'webhook-id': 'msg_1', 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
    expect(await verifyWebhook([SECRET], padded, body, NOW)).toMatchObject({ ok: false });
    const judged = await judgeDelivery([SECRET], { headers: padded, body }, NOW);
    expect(judged.status).toBe(401);
    expect(judged.problems).toEqual(['webhooks.signature: no signature matches the secret']);
  });

  it('passes a delivery signed under either of two secrets, as during a rotation', async () => {
    const other = `whsec_${btoa('k'.repeat(32))}`;
    const body = JSON.stringify(activity());
    const headers = headersAt('msg_1', body);
    const both = { ...headers, 'webhook-signature': `${signed('msg_1', body, new Date(NOW * 1000), other)['webhook-signature']} ${headers['webhook-signature']}` };
    expect((await judgeDelivery([other, SECRET], { headers: new Headers(both), body }, NOW)).status).toBe(200);
    expect((await judgeDelivery([SECRET], { headers: both, body }, NOW)).status).toBe(200);
    expect((await judgeDelivery([`whsec_${btoa('z'.repeat(32))}`], { headers: both, body }, NOW)).problems).toEqual(['webhooks.signature: no signature matches the secret']);
  });

  it('refuses a body changed after signing, and a delivery without the three headers', async () => {
    const body = JSON.stringify(activity());
    const headers = headersAt('msg_1', body);
    expect((await judgeDelivery([SECRET], { headers, body: body.replace('alpha', 'beta') }, NOW)).problems).toEqual(['webhooks.signature: no signature matches the secret']);
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect((await judgeDelivery([SECRET], { headers: unsigned, body }, NOW)).problems).toEqual(['webhooks.signature: missing webhook-id, webhook-timestamp or webhook-signature']);
  });

  it('names an unusable secret instead of throwing', async () => {
    const body = JSON.stringify(activity());
    const judged = await judgeDelivery([SECRET, 'whsec_not base64'], { headers: headersAt('msg_1', `${body} `), body }, NOW);
    expect(judged.status).toBe(401);
    expect(judged.problems).toHaveLength(1);
    expect(judged.problems[0]).toMatch(/^webhooks\.signature: secret 2 is not a usable whsec_ secret \(.+\)$/);
  });
});
