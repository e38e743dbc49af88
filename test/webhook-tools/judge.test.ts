import { describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../core/webhooks/signing.ts';
import { judgeDelivery } from '../../harness/webhooks/index.ts';

const SECRET = `whsec_${btoa('j'.repeat(32))}`;
const NOW = 1_795_000_000;

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
  return judgeDelivery([SECRET], { headers: await webhookHeaders([SECRET], id, NOW, body), body }, NOW);
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
    const judged = await judgeDelivery([SECRET], { headers: await webhookHeaders([SECRET], 'msg_1', NOW - 600, body), body }, NOW);
    expect(judged.status).toBe(401);
    expect(judged.problems).toEqual(['webhooks.signature: webhook-timestamp is 600 s old (tolerance 300 s)']);
    expect(Object.keys(judged.outcomes)).toEqual(['webhooks.signature']);
  });
});
