import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../core/index.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { walkFrom } from '../support/walks.ts';
import { NOW, type World } from '../support/world.ts';

const DAY = 86_400_000;
/** An instant the traveller's journey already has a pair of events at (evt_0240 and evt_0241), near its newest end. */
const TIED_AT = NOW - 3 * DAY + 120 * 60_000;

/** One more of the traveller's events at `at`, on a site and of a type. */
function event(eventId: string, at: number, domain: string, eventType: 'page_view' | 'click'): EventInput {
  const fields = eventType === 'click' ? { clickElement: 'a#tie', clickHref: '/tie' } : { pageTitle: 'Tie' };
  return { eventId, personId: 'per_001', sessionId: 'ses_tie', eventType, timestamp: new Date(at).toISOString(), url: `https://${domain}/tie`, domain, ...fields };
}

/** Six more events at the tied instant, their ids falling between and around the pair's. */
const TIED = ['evt_0240a', 'evt_0240b', 'evt_0240c', 'evt_0241a', 'evt_0241b', 'evt_02400'].map((id, i) =>
  event(id, TIED_AT, i % 2 === 0 ? 'beta.example' : 'shop.alpha.example', i % 3 === 0 ? 'click' : 'page_view'),
);

// docs/implementation-choices.md, "Ordering and paging": events newest first, then eventId descending; a page after a
// cursor holds the events after its position as they stand now. Eight events at one instant make
// cursors land inside the tie, where the page skips the tied events that came before the cursor.
describe.each(MATRIX)('a journey walk across events that share a timestamp ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)), { per: 'test' });

  /** The traveller's events that `keep` selects, in journey order. */
  const expected = (keep: (e: EventInput) => boolean) =>
    [...world.events, ...TIED]
      .filter((e) => e.personId === 'per_001' && keep(e))
      .sort((a, b) => Date.parse(String(b.timestamp)) - Date.parse(String(a.timestamp)) || (b.eventId < a.eventId ? -1 : 1))
      .map((e) => e.eventId);

  it('returns every event once in journey order, walked a few at a time, for the account, a scoped key and an event type', async () => {
    await world.api.admin.loadEvents('acc_a', TIED);
    const walks = [
      { path: '/v1/people/per_001/events', key: world.accountKey, keep: () => true },
      { path: '/v1/people/per_001/events', key: world.scopedKeys['beta.example']!, keep: (e: EventInput) => e.domain === 'beta.example' },
      { path: '/v1/people/per_001/events?event_type=click', key: world.accountKey, keep: (e: EventInput) => e.eventType === 'click' },
    ];
    for (const { path, key, keep } of walks) {
      for (const limit of [1, 2, 3]) {
        const { rows } = await client.walk(path, key, limit);
        expect(rows.map((e) => e.eventId), `${path} by ${limit}`).toEqual(expected(keep));
      }
    }
  });

  it('leaves out an event loaded at the cursor’s instant that sorts before the cursor, and returns one that sorts after it', async () => {
    await world.api.admin.loadEvents('acc_a', TIED);
    const all = expected(() => true);
    // A first page ending on evt_0240b, inside the tie.
    const first = await client.get(`/v1/people/per_001/events?limit=${all.indexOf('evt_0240b') + 1}`, world.accountKey);
    expect(first.body.data.at(-1).eventId).toBe('evt_0240b');
    await world.api.admin.loadEvents('acc_a', [event('evt_0240bb', TIED_AT, 'beta.example', 'click'), event('evt_0240ab', TIED_AT, 'beta.example', 'click')]);

    const rest = (await walkFrom(client, '/v1/people/per_001/events', world.accountKey, first.body.pagination.nextCursor, 2)).map((e) => e.eventId);
    expect(rest).not.toContain('evt_0240bb');
    expect(rest).toEqual(all.slice(all.indexOf('evt_0240b') + 1).flatMap((id) => (id === 'evt_0240a' ? ['evt_0240ab', id] : [id])));
  });
});
