import { describe, expect, it } from 'vitest';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { NOW, type World } from '../support/world.ts';

/**
 * Person ids are unique within an account, not across accounts. A journey page names its person
 * by id (read beside the person's summary, not after it), so these pin that the id is read within
 * the caller's account: another account's person of the same id lends it no event.
 */
describe.each(MATRIX)('a person id that two accounts share ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  const iso = (ms: number) => new Date(ms).toISOString();

  it('gives each account’s key only its own person’s journey', async () => {
    const id = world.travellerId;
    const before = await client.walk(`/v1/people/${id}/events`, world.accountKey);
    await world.api.admin.loadPeople('acc_b', [{ id, visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW - 60_000), lastSeen: iso(NOW + 60_000) }] }]);
    // Newer than every event of acc_a's traveller, so it would head their first page if it leaked.
    await world.api.admin.loadEvents('acc_b', [
      { eventId: 'evt_b_only', personId: id, sessionId: 'ses_b', eventType: 'page_view', timestamp: iso(NOW + 30_000), url: 'https://alpha.example/b', domain: 'alpha.example', pageTitle: 'B' },
    ]);

    const after = await client.walk(`/v1/people/${id}/events`, world.accountKey);
    expect(after.rows.map((e) => e.eventId)).toEqual(before.rows.map((e) => e.eventId));
    const scoped = (await client.get(`/v1/people/${id}/events?limit=5`, world.scopedKeys['alpha.example'])).body;
    expect(scoped.data.map((e: { eventId: string }) => e.eventId)).not.toContain('evt_b_only');

    const other = (await client.get(`/v1/people/${id}/events`, world.otherAccountKey)).body;
    expect(other.data.map((e: { eventId: string }) => e.eventId)).toEqual(['evt_b_only']);
    expect(other.pagination).toMatchObject({ count: 1 });
  });
});
