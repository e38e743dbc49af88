import { describe, expect, it } from 'vitest';
import { errorCode, type Reply } from '../support/client.ts';
import { POSTGRES_BACKENDS } from '../support/backends.ts';
import { inProcess, nodeHttp, onBackend, serveWorld, type Client, type Target } from '../support/targets.ts';
import type { World } from '../support/world.ts';

/**
 * A message quotes at most 100 characters of a client's input, JSON-quoted, then `…`: a 1 MB path
 * id once came back whole in the 404 message. Each message still names what it is about.
 */

/** The longest message any of these answers may have: the text around a quote of 100 characters. */
const MAX_MESSAGE = 260;

function expectBounded(reply: Reply, status: number, code: string, what: string): string {
  expect(reply.status, what).toBe(status);
  expect(errorCode(reply), what).toBe(code);
  const { message } = reply.body.error;
  expect(message.length, `${what}: ${message.slice(0, 300)}`).toBeLessThanOrEqual(MAX_MESSAGE);
  return message;
}

/** The messages for an id, path or name of `size` characters, through `target`. */
function quotingSuite(target: Target, size: number): void {
  describe(`quoting client input in messages (${target.name}, ${size} characters)`, () => {
    let world: World;
    let client: Client;
    serveWorld(target, {}, (w, c) => ((world = w), (client = c)));
    const long = 'a'.repeat(size);
    const quoted = `"${'a'.repeat(100)}"…`;

    it('quotes the first 100 characters of a long person or company id in the 404, naming it', async () => {
      for (const [path, start] of [
        [`/v1/people/${long}`, 'No person with id '],
        [`/v1/people/${long}/events`, 'No person with id '],
        [`/v1/companies/${long}`, 'No company with id '],
      ] as const) {
        const message = expectBounded(await client.get(path, world.accountKey), 404, 'not_found', path.slice(0, 40));
        expect(message).toBe(`${start}${quoted} is visible to this key.`);
      }
    });

    it('quotes the first 100 characters of a long unknown path, and of the path of a wrong method', async () => {
      const missing = expectBounded(await client.get(`/v1/${long}`, world.accountKey), 404, 'not_found', 'unknown path');
      expect(missing).toBe(`No endpoint at "/v1/${'a'.repeat(96)}"….`);
      const wrong = expectBounded(await client.send('DELETE', `/v1/people/${long}`, world.accountKey), 405, 'method_not_allowed', 'wrong method');
      expect(wrong).toBe(`Method DELETE is not allowed on "/v1/people/${'a'.repeat(89)}"…; allowed: GET.`);
    });

    it('quotes the first 100 characters of a long unknown parameter name, naming it', async () => {
      const message = expectBounded(await client.get(`/v1/people?${long}=1`, world.accountKey), 400, 'bad_request', 'parameter name');
      expect(message).toBe(`Parameter ${quoted} is not supported here; allowed: limit, cursor, domain, client_ref, last_seen_after, hot_leads.`);
    });
  });
}

quotingSuite(inProcess, 1_000_000);
// Over HTTP the request line must fit in Node's 16 KB of headers.
quotingSuite(nodeHttp, 8_000);
// The same long inputs reach Postgres's queries (a 1 MB id compared against an indexed column).
for (const backend of POSTGRES_BACKENDS) quotingSuite(onBackend(inProcess, backend), 1_000_000);

describe('quoting client input in messages (in-process details)', () => {
  let world: World;
  let client: Client;
  serveWorld(inProcess, {}, (w, c) => ((world = w), (client = c)));

  it('never splits a character made of two UTF-16 units, and shows control characters as escapes', async () => {
    const id = `${'b'.repeat(99)}😀tail`;
    const message = (await client.get(`/v1/people/${encodeURIComponent(id)}`, world.accountKey)).body.error.message;
    expect(message).toBe(`No person with id "${'b'.repeat(99)}"… is visible to this key.`);
    const short = (await client.get(`/v1/people/%00x%22y`, world.accountKey)).body.error.message;
    expect(short).toBe('No person with id "\\u0000x\\"y" is visible to this key.');
  });

  it('quotes a long unknown export filter and a long domains value, naming them', async () => {
    const send = (body: unknown) => client.send('POST', '/v1/exports', world.accountKey, JSON.stringify(body), { 'content-type': 'application/json' });
    const key = 'k'.repeat(60_000);
    const unknown = expectBounded(await send({ [key]: 1 }), 400, 'bad_request', 'unknown filter');
    expect(unknown).toBe(`Unsupported export filter "${'k'.repeat(100)}"….`);
    const domain = `${'d'.repeat(250)}.example`.slice(0, 256);
    const bad = expectBounded(await send({ domains: [domain] }), 400, 'bad_request', 'domains');
    expect(bad).toBe(`Export filter domains has "${'d'.repeat(100)}"…, which is not a hostname.`);
  });

  it('names a plain method as it is and quotes a long or unusual one in a 405', async () => {
    const plain = await client.send('PURGE', '/v1/people', world.accountKey);
    expect(plain.body.error.message).toBe('Method PURGE is not allowed on "/v1/people"; allowed: GET.');
    const odd = `X!${'Y'.repeat(500)}`;
    const message = expectBounded(await client.send(odd, '/v1/people', world.accountKey), 405, 'method_not_allowed', 'odd method');
    expect(message).toBe(`Method "X!${'Y'.repeat(98)}"… is not allowed on "/v1/people"; allowed: GET.`);
  });
});
