import { describe, expect, it } from 'vitest';
import { MATRIX, serveWorld, type Client } from '../support/targets.ts';
import type { World } from '../support/world.ts';

const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const str = expect.any(String);
const int = expect.any(Number);
const strOrNull = (v: unknown) => v === null || typeof v === 'string';

const PERSON_FIELDS = ['id', 'email', 'businessEmail', 'personalEmail', 'firstName', 'lastName', 'title', 'company', 'location', 'region', 'linkedinUrl', 'phone', 'profileImageUrl', 'visitCount', 'firstSeen', 'lastSeen', 'isHotLead', 'classifiedSeniority', 'classifiedJobFunction', 'trafficType', 'adPlatform', 'companyData', 'domain', 'clientRef'];
const COMPANY_FIELDS = ['id', 'name', 'domain', 'standardizedIndustry', 'location', 'region', 'linkedinUrl', 'employeeCount', 'visitCount', 'firstSeen', 'lastSeen', 'isHotCompany', 'trafficType', 'adPlatform'];

describe.each(MATRIX)('resource shapes ($name)', (target) => {
  let world: World;
  let client: Client;
  serveWorld(target, {}, (w, c) => ((world = w), (client = c)));

  it('gives every person exactly the spec fields with their types and UTC Z timestamps', async () => {
    const { rows } = await client.walk('/v1/people', world.accountKey);
    for (const p of rows) {
      expect(Object.keys(p).sort()).toEqual([...PERSON_FIELDS].sort());
      expect(p).toMatchObject({ id: str, visitCount: int, firstSeen: expect.stringMatching(UTC), lastSeen: expect.stringMatching(UTC), isHotLead: expect.any(Boolean), domain: str });
      for (const f of ['email', 'businessEmail', 'personalEmail', 'firstName', 'lastName', 'title', 'company', 'location', 'region', 'linkedinUrl', 'phone', 'profileImageUrl', 'classifiedSeniority', 'classifiedJobFunction', 'trafficType', 'adPlatform', 'clientRef']) {
        expect(strOrNull(p[f]), f).toBe(true);
      }
      if (p.companyData !== null) {
        expect(Object.keys(p.companyData).sort()).toEqual(['companyId', 'domain', 'employeeCount', 'location', 'name', 'standardizedIndustry']);
        expect(p.companyData).toMatchObject({ companyId: str, name: str, employeeCount: int });
      }
    }
    expect(rows.some((p) => p.companyData === null)).toBe(true);
    expect(rows.some((p) => p.lastName === null)).toBe(true);
  });

  it('answers one person as { data: Person }, equal to their list row', async () => {
    const list = (await client.get('/v1/people?limit=3', world.accountKey)).body.data;
    const one = await client.get(`/v1/people/${list[2].id}`, world.accountKey);
    expect(one.body).toEqual({ data: list[2] });
  });

  it('returns text with quotes, backslashes, control characters and any script exactly as loaded', async () => {
    const awkward = 'Zoë "Q" \\ O\'Brien\n\t\u0001 </script> 名前 🚀 =1+1';
    await world.api.admin.loadPeople('acc_a', [
      { id: 'per_awkward', firstName: awkward, lastName: null, title: '{"not":"json"}', company: ',;|', isHotLead: true, visits: [{ domain: 'alpha.example', visitCount: 7, firstSeen: '2026-11-20T11:00:00Z', lastSeen: '2026-11-20T23:59:59Z' }] },
    ]);
    const one = (await client.get('/v1/people/per_awkward', world.accountKey)).body.data;
    expect(one).toMatchObject({ id: 'per_awkward', firstName: awkward, lastName: null, title: '{"not":"json"}', company: ',;|', isHotLead: true, visitCount: 7, lastSeen: '2026-11-20T23:59:59Z', companyData: null });
    const listed = (await client.walk('/v1/people', world.accountKey)).rows.find((p) => p.id === 'per_awkward');
    expect(listed).toEqual(one);
    const scoped = (await client.get('/v1/people/per_awkward', world.scopedKeys['alpha.example']!)).body.data;
    expect(scoped).toEqual(one);
  });

  it('gives every company exactly the spec fields with their types', async () => {
    const { rows } = await client.walk('/v1/companies', world.accountKey);
    for (const c of rows) {
      expect(Object.keys(c).sort()).toEqual([...COMPANY_FIELDS].sort());
      expect(c).toMatchObject({ id: str, name: str, visitCount: int, employeeCount: int, firstSeen: expect.stringMatching(UTC), lastSeen: expect.stringMatching(UTC), isHotCompany: expect.any(Boolean) });
    }
    const one = await client.get(`/v1/companies/${rows[0].id}`, world.accountKey);
    expect(one.body).toEqual({ data: rows[0] });
  });

  it('derives a company’s visits and dates from its people', async () => {
    const company = (await client.get('/v1/companies/co_01', world.accountKey)).body.data;
    const members = world.people.filter((p) => p.companyId === 'co_01');
    expect(company.visitCount).toBe(members.flatMap((p) => p.visits).reduce((n, v) => n + v.visitCount, 0));
    const lastSeen = Math.max(...members.flatMap((p) => p.visits).map((v) => Date.parse(String(v.lastSeen))));
    expect(Date.parse(company.lastSeen)).toBe(lastSeen);
  });

  it('gives events their always-present fields plus only the fields of their type', async () => {
    const reply = await client.get(`/v1/people/${world.travellerId}/events?limit=100`, world.accountKey);
    expect(reply.body.person).toEqual({ id: 'per_001', firstName: 'First1', lastName: 'Last1', email: 'person1@mail.example', company: 'Company 1' });
    const expectedExtra: Record<string, string[]> = {
      page_view: ['pageTitle'],
      click: ['clickElement', 'clickHref'],
      scroll: ['pageTitle', 'scrollPercentage'],
      form_submission: ['formId', 'pageTitle'],
      video_play: ['durationSeconds', 'videoId'],
    };
    for (const e of reply.body.data) {
      expect(e).toMatchObject({ eventId: str, sessionId: str, eventType: str, timestamp: expect.stringMatching(UTC), url: str, domain: str, clientRef: str });
      const extra = Object.keys(e).filter((k) => !['eventId', 'sessionId', 'eventType', 'timestamp', 'url', 'domain', 'clientRef'].includes(k)).sort();
      expect(extra, e.eventType).toEqual(expectedExtra[e.eventType]);
      if (e.eventType === 'scroll') expect(Number.isInteger(e.scrollPercentage)).toBe(true);
    }
  });

  it('leaves clientRef off events of a site that has none', async () => {
    const person = world.people.find((p) => p.visits[0]!.domain === 'gamma.example')!;
    await world.api.admin.loadEvents('acc_a', [{ eventId: 'evt_gamma', personId: person.id, sessionId: 's', eventType: 'page_view', timestamp: '2026-11-20T00:00:00Z', url: 'https://gamma.example/', domain: 'gamma.example' }]);
    const reply = await client.get(`/v1/people/${person.id}/events`, world.accountKey);
    expect(reply.body.data[0]).toEqual({ eventId: 'evt_gamma', sessionId: 's', eventType: 'page_view', timestamp: '2026-11-20T00:00:00Z', url: 'https://gamma.example/', domain: 'gamma.example' });
  });

  it('gives statistics exactly the spec fields with their types', async () => {
    const { data } = (await client.get('/v1/stats', world.accountKey)).body;
    expect(Object.keys(data).sort()).toEqual(['dailyAverage', 'generatedAt', 'periodDays', 'recentEvents', 'totalCompanies', 'totalPeople']);
    expect(data).toMatchObject({ totalPeople: int, totalCompanies: int, recentEvents: int, periodDays: 30, dailyAverage: expect.any(Number), generatedAt: expect.stringMatching(UTC) });
  });
});
