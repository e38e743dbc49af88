import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createApi, type Database as Schema, type EventInput, type TimeInput } from '../../core/index.ts';
import { EVENT_BATCH_SIZE, generateDemo, seedDemo, type DemoData, type DemoOptions, type SeedProgress } from '../../scripts/demo/index.ts';

const ANCHOR = Date.UTC(2026, 10, 20);
const OPTIONS: DemoOptions = { seed: 42, people: 200, anchor: ANCHOR };
const SPEC_TYPES = new Set(['page_view', 'click', 'scroll', 'form_submission']);

function allEvents(data: DemoData): EventInput[] {
  return [...data.events()].flat();
}

function ms(time: TimeInput): number {
  return time instanceof Date ? time.getTime() : typeof time === 'number' ? time : Date.parse(time);
}

// One shared run: generating is deterministic, so tests that only read it can share it.
const data = generateDemo(OPTIONS);
const events = allEvents(data);

describe('generateDemo', () => {
  it('gives deep-equal data, events included, when called twice with the same options', () => {
    const again = generateDemo({ ...OPTIONS });
    expect(again.sites).toEqual(data.sites);
    expect(again.companies).toEqual(data.companies);
    expect(again.people).toEqual(data.people);
    expect(again.eventCount).toBe(data.eventCount);
    expect(allEvents(again)).toEqual(events);
  });

  it('gives the same events each time events() is iterated', () => {
    expect(allEvents(data)).toEqual(events);
  });

  it('gives different data for a different seed', () => {
    const other = generateDemo({ ...OPTIONS, seed: 43 });
    expect(other.people).not.toEqual(data.people);
    expect(other.companies).not.toEqual(data.companies);
    expect(allEvents(other)).not.toEqual(events);
  });

  it('generates exactly the number of people asked for, with unique per_ ids', () => {
    for (const people of [1, 7, 200]) {
      const run = people === 200 ? data : generateDemo({ ...OPTIONS, people });
      expect(run.people).toHaveLength(people);
      expect(new Set(run.people.map((p) => p.id)).size).toBe(people);
      for (const p of run.people) expect(p.id).toMatch(/^per_[a-z0-9]{16}$/);
    }
  });

  it('registers client sites with a root and subdomain per client, a look-alike domain and a site without clientRef', () => {
    const clients = new Set(data.sites.map((s) => s.clientRef).filter((c) => c !== null));
    expect(clients.size).toBeGreaterThanOrEqual(4);
    expect(data.sites.some((s) => s.clientRef === null)).toBe(true);
    const sameClientSubdomain = data.sites.some((root) =>
      data.sites.some((sub) => sub.domain.endsWith(`.${root.domain}`) && sub.clientRef === root.clientRef && root.clientRef !== null),
    );
    expect(sameClientSubdomain).toBe(true);
    const lookAlike = data.sites.some((a) =>
      data.sites.some((b) => a !== b && a.domain.endsWith(b.domain) && !a.domain.endsWith(`.${b.domain}`) && a.clientRef !== b.clientRef),
    );
    expect(lookAlike).toBe(true);
  });

  it('gives at least 20 companies, and every person with a companyId that company\'s name', () => {
    expect(data.companies.length).toBeGreaterThanOrEqual(20);
    const names = new Map(data.companies.map((c) => [c.id, c.name]));
    for (const p of data.people) {
      if (p.companyId) expect(p.company).toBe(names.get(p.companyId));
      else expect(p.company).toBeNull();
    }
  });

  it('keeps every visit window at or before the anchor', () => {
    for (const p of data.people) {
      expect(p.visits.length).toBeGreaterThanOrEqual(1);
      for (const v of p.visits) {
        expect(ms(v.firstSeen)).toBeLessThanOrEqual(ms(v.lastSeen));
        expect(ms(v.lastSeen)).toBeLessThanOrEqual(ANCHOR);
        expect(v.visitCount).toBeGreaterThanOrEqual(1);
        expect(v.visitCount).toBeLessThanOrEqual(60);
      }
    }
  });

  it("keeps every event on one of its person's visit domains, inside that visit's window and at or before the anchor", () => {
    const visits = new Map(data.people.map((p) => [p.id, new Map(p.visits.map((v) => [v.domain, v]))]));
    // Collected rather than asserted one by one: tens of thousands of expect calls are slow.
    const wrong = events.filter((e) => {
      const visit = visits.get(e.personId)?.get(e.domain);
      const t = ms(e.timestamp);
      return !visit || t < ms(visit.firstSeen) || t > ms(visit.lastSeen) || t > ANCHOR || !e.url.startsWith(`https://${e.domain}/`);
    });
    expect(wrong.map((e) => e.eventId)).toEqual([]);
  });

  it('derives every time from the anchor rather than the clock', () => {
    const anchor = Date.UTC(2001, 0, 1);
    const old = generateDemo({ seed: 1, people: 60, anchor });
    for (const p of old.people) for (const v of p.visits) expect(ms(v.lastSeen)).toBeLessThanOrEqual(anchor);
    for (const e of allEvents(old)) expect(ms(e.timestamp)).toBeLessThanOrEqual(anchor);
  });

  it('gives every event a unique evt_ id and a ses_ session id', () => {
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    for (const e of events) {
      expect(e.eventId).toMatch(/^evt_/);
      expect(e.sessionId).toMatch(/^ses_/);
    }
  });

  it('counts its events exactly and yields them in batches of at most 5,000', () => {
    expect(events).toHaveLength(data.eventCount);
    for (const batch of data.events()) expect(batch.length).toBeLessThanOrEqual(EVENT_BATCH_SIZE);
  });

  it('includes a person who visited sites of different clients', () => {
    const clientOf = new Map(data.sites.map((s) => [s.domain, s.clientRef]));
    const multi = data.people.filter((p) => new Set(p.visits.map((v) => clientOf.get(v.domain))).size > 1);
    expect(multi.length).toBeGreaterThan(0);
    for (const p of multi) expect(new Set(p.visits.map((v) => clientOf.get(v.domain))).size).toBe(p.visits.length);
  });

  it('includes a person without a company', () => {
    expect(data.people.some((p) => p.companyId === null && p.company === null)).toBe(true);
  });

  it('includes complete and incomplete profiles', () => {
    const incomplete = data.people.filter((p) => [p.phone, p.linkedinUrl, p.personalEmail, p.title, p.location].includes(null));
    expect(incomplete.length).toBeGreaterThan(0);
    expect(incomplete.length).toBeLessThan(data.people.length);
  });

  it('includes an event type beyond page_view, click, scroll and form_submission', () => {
    expect(events.some((e) => !SPEC_TYPES.has(e.eventType))).toBe(true);
  });

  it('gives click events a clickElement and a clickHref', () => {
    const clicks = events.filter((e) => e.eventType === 'click');
    expect(clicks.length).toBeGreaterThan(0);
    for (const e of clicks) {
      expect(typeof e.clickElement).toBe('string');
      expect(e.clickHref).toMatch(/^https:\/\//);
    }
  });

  it('gives scroll events an integer scrollPercentage from 0 to 100', () => {
    const scrolls = events.filter((e) => e.eventType === 'scroll');
    expect(scrolls.length).toBeGreaterThan(0);
    for (const e of scrolls) {
      expect(Number.isInteger(e.scrollPercentage)).toBe(true);
      expect(e.scrollPercentage).toBeGreaterThanOrEqual(0);
      expect(e.scrollPercentage).toBeLessThanOrEqual(100);
    }
  });

  it('gives a 200-person run at least one person with 1,000 events or more', () => {
    const perPerson = new Map<string, number>();
    for (const e of events) perPerson.set(e.personId, (perPerson.get(e.personId) ?? 0) + 1);
    expect(Math.max(...perPerson.values())).toBeGreaterThanOrEqual(1_000);
  });
});

describe('seedDemo', () => {
  it('seeds a real API with exactly the generated sites, companies, people and events', async () => {
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    const api = await createApi({ db });
    await api.admin.createAccount({ id: 'acc_demo', name: 'Demo Partner' });
    const options = { seed: 7, people: 150, anchor: Date.UTC(2026, 10, 20) };
    const progress: SeedProgress[] = [];
    const counts = await seedDemo(api.admin, 'acc_demo', options, (p) => progress.push(p));

    const expected = generateDemo(options);
    expect(counts).toEqual({
      sites: expected.sites.length,
      companies: expected.companies.length,
      people: expected.people.length,
      events: expected.eventCount,
    });
    const sites = await api.admin.listSites('acc_demo');
    expect(sites.map((s) => s.domain).sort()).toEqual(expected.sites.map((s) => s.domain).sort());
    for (const phase of ['sites', 'companies', 'people', 'events'] as const) {
      const last = progress.filter((p) => p.phase === phase).at(-1);
      expect(last, phase).toBeDefined();
      expect(last!.done).toBe(last!.total);
    }
    await db.destroy();
  });
});
