import { describe, expect, it } from 'vitest';
import { webDigests, type Digests } from '../../core/crypto/digests.ts';
import { CursorSigner, REMEMBERED_CURSORS } from '../../core/paging/cursor.ts';
import { domainMatches, normalizeDomain } from '../../core/scope/domain.ts';
import { ManualClock } from '../../core/time/clock.ts';
import { httpDate, isoSeconds, parseIsoInstant } from '../../core/time/iso.ts';

describe('ISO 8601 instants', () => {
  it('parse dates as midnight UTC and date-times with Z or an offset', () => {
    expect(parseIsoInstant('2026-11-01')).toBe(Date.UTC(2026, 10, 1));
    expect(parseIsoInstant('2026-11-01T09:30:00Z')).toBe(Date.UTC(2026, 10, 1, 9, 30));
    expect(parseIsoInstant('2026-11-01T09:30Z')).toBe(Date.UTC(2026, 10, 1, 9, 30));
    expect(parseIsoInstant('2026-11-01T10:30:00.250+01:00')).toBe(Date.UTC(2026, 10, 1, 9, 30, 0, 250));
  });

  it('parse every calendar date of a four-digit year, leap days and years before 100 included', () => {
    for (const date of ['0000-01-01', '0000-02-29', '0050-03-01', '0099-12-31', '2000-02-29', '2024-02-29', '9999-12-31']) {
      expect(parseIsoInstant(date), date).toBe(Date.parse(`${date}T00:00:00Z`));
      expect(parseIsoInstant(`${date}T23:59:59.999-23:59`), date).toBe(Date.parse(`${date}T23:59:59.999-23:59`));
    }
  });

  it('refuse impossible dates, missing zones and other shapes', () => {
    for (const bad of ['2026-02-30', '2025-02-29', '1900-02-29', '0000-00-00', '2026-13-01', '2026-11-01T24:00:00Z', '2026-11-01T09:30:00+24:00', '2026-11-01T09:30:00+05:60', '2026-11-01T09:30:00', '1700000000', 'today', '2026-11-01 09:30:00Z', '']) {
      expect(parseIsoInstant(bad), bad).toBeNull();
    }
  });

  it('render any epoch second exactly as Date does, to the second, with Z', () => {
    for (let s = -86_400 * 3; s < 4_000_000_000; s += 7_919_993) expect(isoSeconds(s), String(s)).toBe(new Date(s * 1000).toISOString().slice(0, 19) + 'Z');
    for (const s of [0, 59, 60, 3599, 3600, 86_399, 86_400, 1_795_000_000, 1_795_000_001]) expect(isoSeconds(s)).toBe(new Date(s * 1000).toISOString().slice(0, 19) + 'Z');
    // Twice over more days than its cache of dates holds, so the cache starts again on the way.
    for (const pass of [0, 1]) for (let d = 0; d < 5_000; d++) { const s = 1_000_000_000 + d * 86_400 + pass * 3_723; expect(isoSeconds(s)).toBe(new Date(s * 1000).toISOString().slice(0, 19) + 'Z'); }
  });

  it('render epoch seconds as whole-second UTC with Z', () => {
    expect(isoSeconds(0)).toBe('1970-01-01T00:00:00Z');
    expect(isoSeconds(1_795_000_000)).toBe('2026-11-18T11:06:40Z');
  });

  it('render HTTP dates as Date does, within a second, into the next and back again', () => {
    const at = Date.UTC(2026, 10, 29, 23, 59, 59);
    for (const ms of [at, at + 999, at + 1000, at + 86_400_000, at - 1, at, -1, 0, 4_102_444_800_000]) expect(httpDate(ms), String(ms)).toBe(new Date(ms).toUTCString());
    expect(httpDate(at + 1000)).toBe('Mon, 30 Nov 2026 00:00:00 GMT');
  });
});

describe('domains', () => {
  it('match themselves and their subdomains, never look-alikes or parents', () => {
    expect(domainMatches('example.com', 'example.com')).toBe(true);
    expect(domainMatches('www.example.com', 'example.com')).toBe(true);
    expect(domainMatches('a.b.example.com', 'example.com')).toBe(true);
    expect(domainMatches('badexample.com', 'example.com')).toBe(false);
    expect(domainMatches('example.com', 'www.example.com')).toBe(false);
    expect(domainMatches('example.com.evil', 'example.com')).toBe(false);
  });

  it('normalise case and a trailing dot, and refuse what is not a hostname', () => {
    expect(normalizeDomain('WWW.Example.COM.')).toBe('www.example.com');
    for (const bad of ['', 'a b.com', '-x.com', 'x-.com', 'x..com', '%2e.com', 'x.com/path', 'a'.repeat(64) + '.com']) expect(normalizeDomain(bad), bad).toBeNull();
  });
});

describe('the cursor signer', () => {
  const signer = new CursorSigner('secret', 60);
  const position = { sortValue: 1_795_000_000, id: 'per_abc' };

  it('round-trips a position within its context and lifetime', async () => {
    const cursor = await signer.sign(position, 'ctx', 1000);
    expect(await signer.verify(cursor, 'ctx', 1059)).toEqual(position);
  });

  it('refuses another context, another secret, expiry and any edited character', async () => {
    const cursor = await signer.sign(position, 'ctx', 1000);
    expect(await signer.verify(cursor, 'ctx2', 1000)).toBeNull();
    expect(await new CursorSigner('other', 60).verify(cursor, 'ctx', 1000)).toBeNull();
    expect(await signer.verify(cursor, 'ctx', 1060)).toBeNull();
    for (let i = 0; i < cursor.length; i += 3) {
      const edited = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      expect(await signer.verify(edited, 'ctx', 1000), `edit at ${i}`).toBeNull();
    }
  });

  /** WebCrypto's digests, counting the HMACs they compute. */
  const countingDigests = () => {
    const counted = { hmacs: 0 };
    const digests: Digests = { ...webDigests, hmacSha256: (secret) => { const sign = webDigests.hmacSha256(secret); return (text) => (counted.hmacs++, sign(text)); } };
    return { counted, digests };
  };

  it('verifies a cursor it signed itself without computing its HMAC again, and one another signer issued by its HMAC', async () => {
    const { counted, digests } = countingDigests();
    const here = new CursorSigner('secret', 60, digests);
    const cursor = await here.sign(position, 'ctx', 1000);
    expect(counted.hmacs).toBe(1);
    expect(await here.verify(cursor, 'ctx', 1000)).toEqual(position);
    expect(counted.hmacs, 'a cursor this signer issued is compared with the MAC it remembers').toBe(1);
    // Another process with the same secret: nothing remembered, the HMAC decides.
    const elsewhere = new CursorSigner('secret', 60, digests);
    expect(await elsewhere.verify(cursor, 'ctx', 1000)).toEqual(position);
    expect(counted.hmacs).toBe(2);
    expect(await elsewhere.verify(cursor, 'ctx', 1060), 'the payload read back carries the expiry').toBeNull();
    // A remembered cursor still answers only in its own context, before its expiry, with its own MAC.
    expect(await here.verify(cursor, 'ctx2', 1000)).toBeNull();
    expect(await here.verify(cursor, 'ctx', 1060)).toBeNull();
    expect(await here.verify(cursor.slice(0, -1) + (cursor.endsWith('0') ? '1' : '0'), 'ctx', 1000)).toBeNull();
  });

  it('remembers a bounded number of cursors: the oldest is forgotten, then verified by its HMAC and still accepted', async () => {
    const { counted, digests } = countingDigests();
    const signer = new CursorSigner('secret', 60, digests);
    const cursors: string[] = [];
    for (let i = 0; i <= REMEMBERED_CURSORS; i++) cursors.push(await signer.sign({ sortValue: i, id: 'per_abc' }, 'ctx', 1000));
    const signed = counted.hmacs;
    expect(await signer.verify(cursors.at(-1)!, 'ctx', 1000)).toEqual({ sortValue: REMEMBERED_CURSORS, id: 'per_abc' });
    expect(counted.hmacs, 'the newest is remembered').toBe(signed);
    expect(await signer.verify(cursors[1]!, 'ctx', 1000)).toEqual({ sortValue: 1, id: 'per_abc' });
    expect(counted.hmacs, 'the second oldest is remembered').toBe(signed);
    expect(await signer.verify(cursors[0]!, 'ctx', 1000)).toEqual({ sortValue: 0, id: 'per_abc' });
    expect(counted.hmacs, 'the oldest was forgotten and verified by its HMAC').toBe(signed + 1);
  });

  it('carries ids of any characters as base64url of their UTF-8, ASCII or not', async () => {
    for (const id of ['per_abc', 'per_é', 'evt_日本', 'evt_😀', 'evt_\u00ff\u0100']) {
      const cursor = await signer.sign({ sortValue: -1.5, id }, 'ctx', 1000);
      const payload = cursor.slice(0, cursor.indexOf('.'));
      expect(payload).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(payload, 'base64url').toString('utf8')).toBe(JSON.stringify([-1.5, id, 1060]));
      expect(await signer.verify(cursor, 'ctx', 1000), id).toEqual({ sortValue: -1.5, id });
      // Another signer with the same secret remembers nothing: it reads the payload itself.
      expect(await new CursorSigner('secret', 60).verify(cursor, 'ctx', 1000), id).toEqual({ sortValue: -1.5, id });
    }
  });
});
