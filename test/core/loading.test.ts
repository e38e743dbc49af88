import { afterEach, describe, expect, it } from 'vitest';
import { AdminError } from '../../core/index.ts';
import { clientFor } from '../support/client.ts';
import { inProcess } from '../support/targets.ts';
import { BACKENDS, type Backend } from '../support/backends.ts';
import { createWorld, type World } from '../support/world.ts';

/** Worlds of the running test on `backend`, dropped after it. */
function worldsOn(backend: Backend): () => Promise<World> {
  const open: World[] = [];
  afterEach(async () => {
    for (const world of open.splice(0)) await world.close();
  });
  return async () => {
    const world = await createWorld({ backend });
    open.push(world);
    return world;
  };
}

describe.each(BACKENDS)('loading data through the admin surface ($name)', (backend) => {
  const newWorld = worldsOn(backend);

  it('refuses an event on a site its person never visited, loading none of the batch', async () => {
    const world = await newWorld();
    const before = await world.api.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const event = (eventId: string, domain: string) => ({ eventId, personId: 'per_000', sessionId: 's', eventType: 'page_view', timestamp: '2026-11-20T00:00:00Z', url: `https://${domain}/`, domain });
    await expect(world.api.admin.loadEvents('acc_a', [event('ok_1', 'alpha.example'), event('bad_1', 'beta.example')])).rejects.toThrow(AdminError);
    await expect(world.api.admin.loadEvents('acc_a', [event('bad_2', 'beta.example')])).rejects.toThrow(/no visits on beta\.example/);
    const after = await world.api.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('refuses people on unregistered sites and events of unknown people, naming the field', async () => {
    const world = await newWorld();
    await expect(world.api.admin.loadPeople('acc_a', [{ id: 'p', visits: [{ domain: 'nope.example', visitCount: 1, firstSeen: '2026-11-01', lastSeen: '2026-11-02' }] }])).rejects.toThrow(/people\[0\]\.visits\[0\]\.domain/);
    await expect(world.api.admin.loadPeople('acc_a', [{ id: 'p', visits: [] }])).rejects.toThrow(/people\[0\]\.visits/);
    await expect(world.api.admin.loadEvents('acc_a', [{ eventId: 'e', personId: 'ghost', sessionId: 's', eventType: 'x', timestamp: '2026-11-01T00:00:00Z', url: '/', domain: 'alpha.example' }])).rejects.toThrow(/events\[0\]\.personId/);
  });

  it('skips an event id that was already loaded, keeping the first', async () => {
    const world = await newWorld();
    const original = world.events[0]!;
    const inserted = await world.api.admin.loadEvents('acc_a', [{ ...original, url: 'https://changed.example/' }]);
    expect(inserted).toBe(0);
    const stored = await world.api.db.selectFrom('events').select('body').where('event_id', '=', original.eventId).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.body).url).toBe(original.url);
  });
});

describe.each(BACKENDS)('company activity ($name)', (backend) => {
  const newWorld = worldsOn(backend);

  it('follows a person who moves to another company, on both companies, account-wide and per site', async () => {
    const world = await newWorld();
    const client = clientFor((await inProcess.start(world.api)).call);
    const get = async (id: string, key = world.accountKey) => {
      const reply = await client.get(`/v1/companies/${id}`, key);
      expect(reply.status, id).toBe(200);
      return reply.body.data;
    };
    const mover = world.people.find((p) => p.companyId === 'co_01' && p.visits.length === 1)!;
    const [before01, before02] = [await get('co_01'), await get('co_02')];
    await world.api.admin.loadPeople('acc_a', [{ ...mover, companyId: 'co_02', company: 'Company 2' }]);
    const [after01, after02] = [await get('co_01'), await get('co_02')];
    const moved = mover.visits[0]!.visitCount;
    expect(after01.visitCount).toBe(before01.visitCount - moved);
    expect(after02.visitCount).toBe(before02.visitCount + moved);
    const siteKey = world.scopedKeys[mover.visits[0]!.domain]!;
    expect((await get('co_02', siteKey)).visitCount).toBeGreaterThanOrEqual(moved);
  });
});
