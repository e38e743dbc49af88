import { describe, expect, it } from 'vitest';
import { errorCode } from '../support/client.ts';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import { NOW, siteDomainsOf, type World } from '../support/world.ts';

describe.each(MATRIX)('filters ($name)', (target) => {
  let world: World;
  let client: Client;
  const ids = (rows: any[]) => rows.map((r) => r.id).sort();
  const peopleOn = (domains: string[]) => world.people.filter((p) => siteDomainsOf(p).some((d) => domains.includes(d))).map((p) => p.id).sort();
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)));

  it('domain matches the domain and its subdomains, never a look-alike', async () => {
    const { rows } = await client.walk('/v1/people?domain=alpha.example', world.accountKey);
    expect(ids(rows)).toEqual(peopleOn(['alpha.example', 'shop.alpha.example']));
    expect(rows.every((p) => p.domain === 'alpha.example' || p.domain === 'shop.alpha.example')).toBe(true);
    const sub = await client.walk('/v1/people?domain=shop.alpha.example', world.accountKey);
    expect(ids(sub.rows)).toEqual(peopleOn(['shop.alpha.example']));
    const lookalike = await client.walk('/v1/people?domain=badalpha.example', world.accountKey);
    expect(ids(lookalike.rows)).toEqual(peopleOn(['badalpha.example']));
  });

  it('domain is matched case-insensitively, and an unknown domain gives an empty page', async () => {
    const upper = await client.walk('/v1/people?domain=ALPHA.Example', world.accountKey);
    expect(ids(upper.rows)).toEqual(peopleOn(['alpha.example', 'shop.alpha.example']));
    const none = await client.get('/v1/people?domain=nobody.example', world.accountKey);
    expect(none.body).toEqual({ data: [], pagination: { limit: 50, count: 0 } });
    const parent = await client.get('/v1/people?domain=example', world.accountKey);
    expect(parent.body.pagination.count).toBe(50);
  });

  it('client_ref covers every domain registered under that reference', async () => {
    const { rows } = await client.walk('/v1/people?client_ref=alpha', world.accountKey);
    expect(ids(rows)).toEqual(peopleOn(['alpha.example', 'shop.alpha.example']));
    expect(rows.every((p) => p.clientRef === 'alpha')).toBe(true);
    expect((await client.get('/v1/people?client_ref=nobody', world.accountKey)).body.data).toEqual([]);
  });

  it('domain and client_ref together select the sites matching both', async () => {
    const both = await client.walk('/v1/people?client_ref=alpha&domain=shop.alpha.example', world.accountKey);
    expect(ids(both.rows)).toEqual(peopleOn(['shop.alpha.example']));
    expect((await client.get('/v1/people?client_ref=beta&domain=alpha.example', world.accountKey)).body.data).toEqual([]);
  });

  it('attributes a person seen on several sites to the most recent site the filter selected', async () => {
    const multi = world.people.find((p) => p.visits.length > 1 && p.visits[0]!.domain === 'alpha.example')!;
    const viaBeta = (await client.walk('/v1/people?domain=beta.example', world.accountKey)).rows.find((p) => p.id === multi.id);
    expect(viaBeta.domain).toBe('beta.example');
    expect(viaBeta.clientRef).toBe('beta');
    const unfiltered = (await client.get(`/v1/people/${multi.id}`, world.accountKey)).body.data;
    expect(unfiltered.domain).toBe('alpha.example');
    expect(viaBeta.visitCount).toBe(unfiltered.visitCount);
  });

  it('last_seen_after keeps rows seen strictly after the instant, on people and companies', async () => {
    const cutoff = new Date(NOW - 10 * 3_600_000).toISOString();
    const { rows } = await client.walk(`/v1/people?last_seen_after=${cutoff}`, world.accountKey);
    const expected = world.people.filter((p) => Math.max(...p.visits.map((v) => Date.parse(String(v.lastSeen)))) > Date.parse(cutoff));
    expect(ids(rows)).toEqual(expected.map((p) => p.id).sort());
    const companies = await client.walk(`/v1/companies?last_seen_after=${cutoff}`, world.accountKey);
    expect(companies.rows.length).toBeGreaterThan(0);
    expect(companies.rows.every((c) => Date.parse(c.lastSeen) > Date.parse(cutoff))).toBe(true);
    expect(companies.rows.length).toBeLessThan(12);
  });

  it('last_seen_after takes a date, or a date-time with Z or an offset', async () => {
    const day = await client.walk('/v1/people?last_seen_after=2026-11-20', world.accountKey);
    const zoned = await client.walk(`/v1/people?last_seen_after=${encodeURIComponent('2026-11-20T01:00:00+01:00')}`, world.accountKey);
    expect(ids(day.rows)).toEqual(ids(zoned.rows));
    expect(day.rows.length).toBeGreaterThan(0);
  });

  it('hot_leads=true keeps only hot leads; false does not filter', async () => {
    const hot = await client.walk('/v1/people?hot_leads=true', world.accountKey);
    expect(ids(hot.rows)).toEqual(world.people.filter((p) => p.isHotLead).map((p) => p.id).sort());
    const all = await client.walk('/v1/people?hot_leads=false', world.accountKey);
    expect(all.rows).toHaveLength(world.people.length);
  });

  it('event_type narrows a journey to one type, and unknown types pass through untouched', async () => {
    const forms = await client.walk(`/v1/people/${world.travellerId}/events?event_type=form_submission`, world.accountKey);
    const expected = world.events.filter((e) => e.personId === world.travellerId && e.eventType === 'form_submission');
    expect(forms.rows.map((e) => e.eventId).sort()).toEqual(expected.map((e) => e.eventId).sort());
    const video = await client.get(`/v1/people/${world.travellerId}/events?event_type=video_play&limit=1`, world.accountKey);
    const source = world.events.find((e) => e.eventId === video.body.data[0].eventId)!;
    expect(video.body.data[0]).toMatchObject({ eventType: 'video_play', videoId: source.videoId, durationSeconds: source.durationSeconds });
    expect((await client.get(`/v1/people/${world.travellerId}/events?event_type=never_seen`, world.accountKey)).body.data).toEqual([]);
  });

  it('domain narrows a journey to the events on the matching sites', async () => {
    const { rows } = await client.walk(`/v1/people/${world.travellerId}/events?domain=beta.example`, world.accountKey);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((e) => e.domain === 'beta.example')).toBe(true);
    expect((await client.get(`/v1/people/${world.travellerId}/events?client_ref=bad`, world.accountKey)).body.data).toEqual([]);
  });

  it('rejects malformed filter values with validation_error naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/v1/people?domain=not a domain', 'domain'],
      ['/v1/people?domain=-bad-.example', 'domain'],
      ['/v1/people?domain=', 'domain'],
      ['/v1/people?client_ref=', 'client_ref'],
      [`/v1/people?client_ref=${'x'.repeat(129)}`, 'client_ref'],
      ['/v1/people?hot_leads=yes', 'hot_leads'],
      ['/v1/people?last_seen_after=yesterday', 'last_seen_after'],
      ['/v1/people?last_seen_after=2026-02-30', 'last_seen_after'],
      ['/v1/people?last_seen_after=2026-11-01T10:00:00', 'last_seen_after'],
      ['/v1/companies?last_seen_after=1700000000', 'last_seen_after'],
      ['/v1/people/per_001/events?event_type=has space', 'event_type'],
      ['/v1/stats?days=0', 'days'],
      ['/v1/stats?days=366', 'days'],
      ['/v1/people?limit=5&limit=6', 'limit'],
    ];
    for (const [path, param] of cases) {
      const reply = await client.get(path, world.accountKey);
      expect(reply.status, path).toBe(400);
      expect(errorCode(reply), path).toBe('validation_error');
      expect(reply.body.error.message, path).toContain(param);
    }
  });

  it('rejects parameters an endpoint does not know with bad_request naming them', async () => {
    for (const [path, param] of [
      ['/v1/people?hotleads=true', 'hotleads'],
      ['/v1/companies?hot_leads=true', 'hot_leads'],
      ['/v1/people/per_001?limit=5', 'limit'],
      ['/v1/stats?limit=5', 'limit'],
    ]) {
      const reply = await client.get(path!, world.accountKey);
      expect(reply.status, path).toBe(400);
      expect(errorCode(reply)).toBe('bad_request');
      expect(reply.body.error.message).toContain(param);
    }
  });

  it('stats count recent events over `days`, 30 by default, and narrow by domain', async () => {
    const stats = (await client.get('/v1/stats', world.accountKey)).body.data;
    const recent = world.events.filter((e) => Date.parse(String(e.timestamp)) > NOW - 30 * 86_400_000).length;
    expect(stats).toEqual({ totalPeople: 90, totalCompanies: 12, recentEvents: recent, periodDays: 30, dailyAverage: Math.round((recent / 30) * 100) / 100, generatedAt: '2026-11-21T12:00:00Z' });
    const week = (await client.get('/v1/stats?days=2', world.accountKey)).body.data;
    expect(week.periodDays).toBe(2);
    expect(week.recentEvents).toBe(world.events.filter((e) => Date.parse(String(e.timestamp)) > NOW - 2 * 86_400_000).length);
    const beta = (await client.get('/v1/stats?domain=beta.example', world.accountKey)).body.data;
    expect(beta.totalPeople).toBe(peopleOn(['beta.example']).length);
    expect(beta.recentEvents).toBe(world.events.filter((e) => e.domain === 'beta.example' && Date.parse(String(e.timestamp)) > NOW - 30 * 86_400_000).length);
    // A domain covers its subdomains in stats as in lists.
    const alpha = (await client.get('/v1/stats?domain=alpha.example', world.accountKey)).body.data;
    expect(alpha.totalPeople).toBe(peopleOn(['alpha.example', 'shop.alpha.example']).length);
    expect(alpha.totalPeople).toBeGreaterThan(peopleOn(['alpha.example']).length);
  });
});
