import { beforeAll, describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { NOW, type World } from '../support/world.ts';

/** Whether rows are in `sortField` descending then `idField` descending order, strictly. */
function inKeysetOrder(rows: any[], sortField: string, idField: string): boolean {
  return rows.every((row, i) => {
    if (i === 0) return true;
    const prev = rows[i - 1];
    return prev[sortField] > row[sortField] || (prev[sortField] === row[sortField] && prev[idField] > row[idField]);
  });
}

describe.each(MATRIX)('paging ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)));

  it('uses 50 rows per page by default and reports limit and count', async () => {
    const reply = await client.get('/v1/people', world.accountKey);
    expect(reply.body.pagination).toEqual({ limit: 50, count: 50, nextCursor: expect.any(String) });
    expect(reply.body.data).toHaveLength(50);
  });

  it('accepts limit from 1 to 100', async () => {
    for (const limit of [1, 37, 100]) {
      const reply = await client.get(`/v1/people?limit=${limit}`, world.accountKey);
      expect(reply.status).toBe(200);
      expect(reply.body.pagination.limit).toBe(limit);
      expect(reply.body.data).toHaveLength(Math.min(limit, 90));
    }
  });

  it('rejects a limit that is out of range or not an integer with validation_error naming limit', async () => {
    for (const bad of ['0', '101', '-1', '1.5', 'ten', '', '1e2', '0x10', '99999999999']) {
      for (const path of ['/v1/people', '/v1/companies', '/v1/people/per_001/events']) {
        const reply = await client.get(`${path}?limit=${bad}`, world.accountKey);
        expect(reply.status, `${path} limit=${bad}`).toBe(400);
        expect(errorCode(reply)).toBe('validation_error');
        expect(reply.body.error.message).toContain('limit');
      }
    }
  });

  it('rejects the reserved sort and order parameters with bad_request on every list', async () => {
    for (const path of ['/v1/people', '/v1/companies', '/v1/people/per_001/events']) {
      for (const param of ['sort=lastSeen', 'order=asc', 'sort=', 'order=desc&limit=5']) {
        const reply = await client.get(`${path}?${param}`, world.accountKey);
        expect(reply.status).toBe(400);
        expect(errorCode(reply)).toBe('bad_request');
        expect(reply.body.error.message).toMatch(/sort|order/);
      }
    }
  });

  it('walks every person exactly once, lastSeen descending then id descending, ending without nextCursor', async () => {
    const { rows, pages } = await client.walk('/v1/people', world.accountKey, 7);
    expect(pages).toBe(Math.ceil(90 / 7));
    expect(rows.map((p) => p.id).sort()).toEqual(world.people.map((p) => p.id).sort());
    expect(inKeysetOrder(rows, 'lastSeen', 'id')).toBe(true);
    const last = await client.get(`/v1/people?limit=100`, world.accountKey);
    expect(last.body.pagination).toEqual({ limit: 100, count: 90 });
    expect('nextCursor' in last.body.pagination).toBe(false);
  });

  it('gives a cursor to a people page with one more person after it, and none to a full page that ends the list, for account and scoped keys', async () => {
    for (const [what, path, key] of [
      ['account key', '/v1/people?', world.accountKey],
      ['hot leads', '/v1/people?hot_leads=true&', world.accountKey],
      ['account key, domain filter', '/v1/people?domain=beta.example&', world.accountKey],
      ['scoped key of one site', '/v1/people?', world.scopedKeys['beta.example']!],
      ['scoped key of a site and its subdomain', '/v1/people?', world.scopedKeys['alpha.example']!],
    ] as const) {
      const all = (await client.get(`${path}limit=100`, key)).body.data as any[];
      expect(all.length, what).toBeGreaterThan(2);
      const whole = await client.get(`${path}limit=${all.length}`, key);
      expect(whole.body.pagination, what).toEqual({ limit: all.length, count: all.length });
      const short = await client.get(`${path}limit=${all.length - 1}`, key);
      expect(short.body.data.map((p: any) => p.id), what).toEqual(all.slice(0, -1).map((p) => p.id));
      const rest = await client.get(`${path}limit=${all.length - 1}&cursor=${encodeURIComponent(short.body.pagination.nextCursor)}`, key);
      expect(rest.body.data.map((p: any) => p.id), what).toEqual([all.at(-1).id]);
      expect(rest.body.pagination, what).toEqual({ limit: all.length - 1, count: 1 });
    }
  });

  it('breaks lastSeen ties by id, so tied rows split across pages are neither repeated nor lost', async () => {
    const all = (await client.get('/v1/people?limit=100', world.accountKey)).body.data;
    const tied = all.findIndex((p: any, i: number) => i > 0 && all[i - 1].lastSeen === p.lastSeen);
    expect(tied).toBeGreaterThan(0);
    // End a page exactly between two rows that share a lastSeen.
    const first = await client.get(`/v1/people?limit=${tied}`, world.accountKey);
    const next = await client.get(`/v1/people?limit=5&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, world.accountKey);
    expect(next.body.data[0].id).toBe(all[tied].id);
  });

  it('walks a journey newest first by timestamp then eventId, every event once', async () => {
    const { rows } = await client.walk(`/v1/people/${world.travellerId}/events`, world.accountKey, 33);
    const expected = world.events.filter((e) => e.personId === world.travellerId).map((e) => e.eventId);
    expect(rows.map((e) => e.eventId).sort()).toEqual(expected.sort());
    expect(inKeysetOrder(rows, 'timestamp', 'eventId')).toBe(true);
  });

  it('ends a journey on a full last page without nextCursor when its length is a multiple of the page size', async () => {
    const total = world.events.filter((e) => e.personId === world.travellerId).length;
    // The largest page size that divides the journey into more than one page.
    const size = Array.from({ length: 99 }, (_, i) => 100 - i).find((n) => total % n === 0 && total > n)!;
    const { rows, pages } = await client.walk(`/v1/people/${world.travellerId}/events`, world.accountKey, size);
    expect(pages).toBe(total / size);
    expect(new Set(rows.map((e) => e.eventId)).size).toBe(total);
  });

  it('walks a journey one event per page, each page counting one and carrying the next cursor', async () => {
    const path = `/v1/people/${world.travellerId}/events`;
    const first = await client.get(`${path}?limit=3`, world.accountKey);
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      const page = await client.get(`${path}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, world.accountKey);
      expect(page.body.pagination.count).toBe(1);
      expect(page.body.data[0].eventId).toBe(first.body.data[i].eventId);
      cursor = page.body.pagination.nextCursor;
      expect(typeof cursor).toBe('string');
    }
  });

  it('walks companies lastSeen descending then id descending', async () => {
    const { rows } = await client.walk('/v1/companies', world.accountKey, 5);
    expect(rows).toHaveLength(12);
    expect(inKeysetOrder(rows, 'lastSeen', 'id')).toBe(true);
  });

  it('lets the page size change between pages of one walk', async () => {
    const first = await client.get('/v1/people?limit=10', world.accountKey);
    const second = await client.get(`/v1/people?limit=3&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, world.accountKey);
    const direct = await client.get('/v1/people?limit=13', world.accountKey);
    expect([...first.body.data, ...second.body.data]).toEqual(direct.body.data);
  });

  it('never repeats or skips an existing row while new rows arrive during a walk', async () => {
    const { api } = world;
    const page1 = await client.get('/v1/people?limit=30', world.accountKey);
    // New people arrive: some newer than everything, some in the middle of the remaining range.
    const iso = (ms: number) => new Date(ms).toISOString();
    await api.admin.loadPeople('acc_a', [
      { id: 'per_new_top', visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW), lastSeen: iso(NOW + 1000) }] },
      { id: 'per_new_mid', visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: iso(NOW - 60 * 3_600_000), lastSeen: iso(NOW - 60 * 3_600_000 + 1000) }] },
    ]);
    const rest: any[] = [];
    let cursor = page1.body.pagination.nextCursor;
    while (cursor) {
      const reply = await client.get(`/v1/people?limit=30&cursor=${encodeURIComponent(cursor)}`, world.accountKey);
      rest.push(...reply.body.data);
      cursor = reply.body.pagination.nextCursor;
    }
    const seen = [...page1.body.data, ...rest].map((p) => p.id).filter((id) => !id.startsWith('per_new'));
    expect(seen.sort()).toEqual(world.people.map((p) => p.id).sort());
    expect(rest.map((p) => p.id)).not.toContain('per_new_top');
  });

  describe('cursors', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = (await client.get('/v1/people?limit=5&hot_leads=true', world.accountKey)).body.pagination.nextCursor;
    });

    const expectInvalid = async (path: string, key = world.accountKey) => {
      const reply = await client.get(path, key);
      expect(reply.status, path).toBe(400);
      expect(errorCode(reply)).toBe('invalid_cursor');
      expect(reply.body.error.message).toContain('cursor');
    };

    it('are opaque text that names no internal row number', () => {
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{64}$/);
    });

    it('continue the walk they came from', async () => {
      const reply = await client.get(`/v1/people?limit=5&hot_leads=true&cursor=${encodeURIComponent(cursor)}`, world.accountKey);
      expect(reply.status).toBe(200);
      expect(reply.body.data.every((p: any) => p.isHotLead)).toBe(true);
    });

    it('are rejected when forged, edited or truncated', async () => {
      const [payload, mac] = cursor.split('.') as [string, string];
      const forgedPayload = Buffer.from(JSON.stringify([2_000_000_000, 'per_zzz', 4_000_000_000])).toString('base64url');
      const flipped = mac.slice(0, -1) + (mac.endsWith('0') ? '1' : '0');
      for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${flipped}`, payload, cursor.slice(0, -3), 'garbage', '.', `${payload}.`, 'x'.repeat(600)]) {
        await expectInvalid(`/v1/people?limit=5&hot_leads=true&cursor=${encodeURIComponent(bad)}`);
      }
    });

    it('are rejected with other filters, on another endpoint, or with another key', async () => {
      const c = encodeURIComponent(cursor);
      await expectInvalid(`/v1/people?limit=5&cursor=${c}`);
      await expectInvalid(`/v1/people?limit=5&hot_leads=false&cursor=${c}`);
      await expectInvalid(`/v1/people?limit=5&hot_leads=true&domain=alpha.example&cursor=${c}`);
      await expectInvalid(`/v1/companies?limit=5&cursor=${c}`);
      await expectInvalid(`/v1/people/per_001/events?cursor=${c}`);
      await expectInvalid(`/v1/people?limit=5&hot_leads=true&cursor=${c}`, world.scopedKeys['alpha.example']);
      await expectInvalid(`/v1/people?limit=5&hot_leads=true&cursor=${c}`, world.otherAccountKey);
    });

    it('of one journey are rejected on another person', async () => {
      const events = await client.get('/v1/people/per_001/events?limit=2', world.accountKey);
      await expectInvalid(`/v1/people/per_000/events?limit=2&cursor=${encodeURIComponent(events.body.pagination.nextCursor)}`);
    });

    it('work with another key of the same scope', async () => {
      const reply = await client.get(`/v1/people?limit=5&hot_leads=true&cursor=${encodeURIComponent(cursor)}`, world.secondAccountKey);
      expect(reply.status).toBe(200);
    });

    it('expire an hour after they were issued', async () => {
      const fresh = (await client.get('/v1/companies?limit=2', world.accountKey)).body.pagination.nextCursor;
      world.clock.advance(3599);
      expect((await client.get(`/v1/companies?limit=2&cursor=${encodeURIComponent(fresh)}`, world.accountKey)).status).toBe(200);
      world.clock.advance(1);
      await expectInvalid(`/v1/companies?limit=2&cursor=${encodeURIComponent(fresh)}`);
    });
  });
});
