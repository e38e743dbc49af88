import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Api, ManualClock, PersonActivityPayload, PersonIdentifiedPayload } from '../../adapters/node/index.ts';
import { clientFor } from '../support/client.ts';
import { inProcess } from '../support/targets.ts';
import { Receiver } from './receiver.ts';
import { ACCOUNT, event, expectAllGenuine, hookedApi, person, verifyAt } from './setup.ts';

let receiver: Receiver;
let api: Api;
let clock: ManualClock;
let accountKey: string;
let secret: string;
let client: ReturnType<typeof clientFor>;

beforeEach(async () => {
  receiver = await Receiver.start();
  ({ api, clock, accountKey } = await hookedApi());
  secret = (await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, events: ['person.identified', 'person.activity'] })).secret;
  client = clientFor((await inProcess.start(api)).call);
});
afterEach(async () => {
  expectAllGenuine(receiver);
  await api.close();
  await receiver.close();
});

/** Every body received so far, each first verified with the reference verifier. */
function bodies<T = any>(): T[] {
  return receiver.received.map((r) => verifyAt(secret, r, clock.now()) as T);
}
const ofKind = <T>(kind: string) => bodies<T & { event: string }>().filter((b) => b.event === kind);

describe('person.identified', () => {
  it('carries the Person exactly as the account-wide read API returns it, for the site the person was first seen on', async () => {
    await api.admin.loadCompanies(ACCOUNT, [{ id: 'co_1', name: 'Analytical Engines', domain: 'engines.example', employeeCount: 12 }]);
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['beta.example'], { companyId: 'co_1', title: 'Analyst', isHotLead: true })]);
    clock.advance(30);
    await api.webhooks.deliverDue();
    const [identified, ...rest] = ofKind<PersonIdentifiedPayload>('person.identified');
    expect(rest).toEqual([]);
    const fromApi = (await client.get('/v1/people/per_ada', accountKey)).body.data;
    expect(identified).toEqual({
      webhookId: receiver.received[0]!.headers['webhook-id'],
      event: 'person.identified',
      timestamp: '2026-11-21T12:00:30Z',
      domain: 'beta.example',
      clientRef: 'beta',
      data: { person: fromApi },
    });
    expect(identified!.data.person).toMatchObject({ companyData: { companyId: 'co_1', name: 'Analytical Engines', employeeCount: 12 }, isHotLead: true });
  });

  it('is sent once per new (person, site): a reload with the same visits sends nothing, a first visit to another site sends one for that site', async () => {
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'], { title: 'Changed' })]);
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example', 'gamma.example'])]);
    await api.webhooks.deliverDue();
    // Deliveries to one endpoint may arrive in any order (several are in flight at once).
    expect(ofKind<PersonIdentifiedPayload>('person.identified').map((b) => [b.domain, b.clientRef]).sort()).toEqual([
      ['alpha.example', 'alpha'],
      ['gamma.example', null],
    ]);
  });
});

describe('person.activity', () => {
  beforeEach(async () => {
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example', 'beta.example']), person('per_bob', ['alpha.example'])]);
    await api.webhooks.deliverDue();
    receiver.received.length = 0;
  });

  it('carries a person’s new events oldest first, each exactly as the events endpoint returns it', async () => {
    await api.admin.loadEvents(ACCOUNT, [
      event('evt_2', 'per_ada', 'alpha.example', 10, { eventType: 'click', clickElement: 'button#buy', clickHref: '/buy', pageTitle: undefined }),
      event('evt_1', 'per_ada', 'alpha.example', 20),
      event('evt_3', 'per_ada', 'alpha.example', 5, { eventType: 'video_play', videoId: 'vid_1', pageTitle: undefined }),
    ]);
    clock.advance(2);
    await api.webhooks.deliverDue();
    const [activity, ...rest] = ofKind<PersonActivityPayload>('person.activity');
    expect(rest).toEqual([]);
    const journey = (await client.get('/v1/people/per_ada/events', accountKey)).body.data;
    expect(activity).toEqual({
      webhookId: receiver.received[0]!.headers['webhook-id'],
      event: 'person.activity',
      timestamp: '2026-11-21T12:00:02Z',
      domain: 'alpha.example',
      clientRef: 'alpha',
      data: { person: { id: 'per_ada', email: 'per_ada@mail.example' }, events: [...journey].reverse(), eventCount: 3, truncated: false },
    });
    expect(activity!.data.events.map((e) => e.eventId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(activity!.data.events[1]).toMatchObject({ eventType: 'click', clickElement: 'button#buy', timestamp: expect.any(String), url: expect.any(String) });
  });

  it('sends one delivery per person and site for one load, never mixing two sites', async () => {
    await api.admin.loadEvents(ACCOUNT, [
      event('evt_a1', 'per_ada', 'alpha.example', 30),
      event('evt_b1', 'per_ada', 'beta.example', 25),
      event('evt_a2', 'per_ada', 'alpha.example', 20),
      event('evt_c1', 'per_bob', 'alpha.example', 15),
      event('evt_b2', 'per_ada', 'beta.example', 10),
    ]);
    await api.webhooks.deliverDue();
    const summary = ofKind<PersonActivityPayload>('person.activity')
      .map((b) => ({ person: b.data.person.id, domain: b.domain, clientRef: b.clientRef, ids: b.data.events.map((e) => e.eventId), domains: [...new Set(b.data.events.map((e) => e.domain))] }))
      .sort((a, b) => (a.person + a.domain).localeCompare(b.person + b.domain));
    expect(summary).toEqual([
      { person: 'per_ada', domain: 'alpha.example', clientRef: 'alpha', ids: ['evt_a1', 'evt_a2'], domains: ['alpha.example'] },
      { person: 'per_ada', domain: 'beta.example', clientRef: 'beta', ids: ['evt_b1', 'evt_b2'], domains: ['beta.example'] },
      { person: 'per_bob', domain: 'alpha.example', clientRef: 'alpha', ids: ['evt_c1'], domains: ['alpha.example'] },
    ]);
  });

  it('sends nothing for events already loaded: a reload delivers nothing, a partly new load only the new events', async () => {
    const first = [event('evt_1', 'per_ada', 'alpha.example', 30), event('evt_2', 'per_ada', 'alpha.example', 20)];
    await api.admin.loadEvents(ACCOUNT, first);
    await api.webhooks.deliverDue();
    expect(receiver.received).toHaveLength(1);
    expect(await api.admin.loadEvents(ACCOUNT, first)).toBe(0);
    await api.webhooks.deliverDue();
    expect(receiver.received).toHaveLength(1);
    await api.admin.loadEvents(ACCOUNT, [...first, event('evt_3', 'per_ada', 'alpha.example', 10), event('evt_3', 'per_ada', 'alpha.example', 10)]);
    await api.webhooks.deliverDue();
    const last = ofKind<PersonActivityPayload>('person.activity')[1]!;
    expect(last.data).toMatchObject({ eventCount: 1, truncated: false });
    expect(last.data.events.map((e) => e.eventId)).toEqual(['evt_3']);
  });

  it('goes only to endpoints that opted in', async () => {
    const other = await Receiver.start();
    try {
      await api.admin.webhooks.create(ACCOUNT, { url: other.url });
      await api.admin.loadEvents(ACCOUNT, [event('evt_1', 'per_ada', 'alpha.example', 30)]);
      await api.admin.loadPeople(ACCOUNT, [person('per_cy', ['gamma.example'])]);
      await api.webhooks.deliverDue();
      expect(other.received.map((r) => r.json.event)).toEqual(['person.identified']);
      expect(receiver.received.map((r) => r.json.event).sort()).toEqual(['person.activity', 'person.identified']);
      expectAllGenuine(other);
    } finally {
      await other.close();
    }
  });
});

describe('the per-delivery cap', () => {
  it('carries the newest events up to the cap, oldest first, with truncated and the count of what it carries', async () => {
    await api.close();
    ({ api, clock, accountKey } = await hookedApi({ webhooks: { activityCap: 3 } }));
    secret = (await api.admin.webhooks.create(ACCOUNT, { url: receiver.url, events: ['person.activity'] })).secret;
    await api.admin.loadPeople(ACCOUNT, [person('per_ada', ['alpha.example'])]);
    await api.admin.loadEvents(ACCOUNT, [50, 40, 30, 20, 10].map((m, i) => event(`evt_${i}`, 'per_ada', 'alpha.example', m)));
    await api.admin.loadEvents(ACCOUNT, [event('evt_x', 'per_ada', 'alpha.example', 5), event('evt_y', 'per_ada', 'alpha.example', 4), event('evt_z', 'per_ada', 'alpha.example', 3)]);
    await api.webhooks.deliverDue();
    const data = ofKind<PersonActivityPayload>('person.activity').map((b) => b.data);
    expect(data.map((d) => [d.events.map((e) => e.eventId), d.eventCount, d.truncated]).sort()).toEqual([
      [['evt_2', 'evt_3', 'evt_4'], 3, true],
      [['evt_x', 'evt_y', 'evt_z'], 3, false],
    ]);
  });
});
