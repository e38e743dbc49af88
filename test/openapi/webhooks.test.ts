import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../adapters/node/index.ts';
import { ContractViolation, ResponseValidator } from '../support/openapi.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { ACCOUNT, event, hookedApi, person } from '../webhooks/setup.ts';

describe('the OpenAPI document’s webhooks against real deliveries', () => {
  const validator = new ResponseValidator();
  let receiver: Receiver;
  let api: Api;

  beforeAll(async () => {
    receiver = await Receiver.start();
    ({ api } = await hookedApi());
    await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, events: ['person.identified', 'person.activity'] });
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example', 'gamma.example']), person('per_bob', ['beta.example'], { email: null })]);
    await api.admin.loadEvents(ACCOUNT, [
      event('evt_1', 'per_ada', 'alpha.example', 30),
      event('evt_2', 'per_ada', 'alpha.example', 20, { eventType: 'click', clickElement: 'a#buy', clickHref: '/buy', pageTitle: undefined }),
      event('evt_3', 'per_ada', 'gamma.example', 10, { eventType: 'video_play', videoId: 'v1' }),
    ]);
    await api.webhooks.deliverDue();
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  it('describes every delivery the dispatcher sends: headers and body of both kinds', () => {
    const kinds = receiver.received.map((r) => r.json.event as string);
    expect(new Set(kinds)).toEqual(new Set(['person.identified', 'person.activity']));
    for (const delivery of receiver.received) validator.checkWebhook(delivery.json.event, delivery.headers, delivery.body);
  });

  it('catches a delivery that contradicts it, naming the kind and the JSON pointer', () => {
    const activity = receiver.received.find((r) => r.json.event === 'person.activity')!;
    const wrong = JSON.stringify({ ...activity.json, data: { ...activity.json.data, eventCount: '3' } });
    expect(() => validator.checkWebhook('person.activity', activity.headers, wrong)).toThrow(ContractViolation);
    expect(() => validator.checkWebhook('person.activity', activity.headers, wrong)).toThrow(/webhook person\.activity.*at "\/data\/eventCount" must be integer/);
    const { ['webhook-signature']: _, ...unsigned } = activity.headers;
    expect(() => validator.checkWebhook('person.activity', unsigned, activity.body)).toThrow(/required header webhook-signature is missing/);
  });
});
