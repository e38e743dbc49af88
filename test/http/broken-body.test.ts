import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../adapters/node/index.ts';

const TOKEN = 'admin-token-for-broken-bodies';

/** A body that sends its first bytes, then fails: the client went away mid-upload. */
function brokenBody(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
      controller.error(new Error('aborted'));
    },
  });
}

describe('a request whose body breaks off before its end', () => {
  let api: Api;
  let accountKey: string;
  const internalErrors: unknown[] = [];

  beforeAll(async () => {
    api = await createApi({ database: ':memory:', admin: { token: TOKEN }, onError: (error) => void internalErrors.push(error) });
    await api.admin.createAccount({ id: 'acc_a', name: 'A' });
    accountKey = (await api.admin.issueAccountKey('acc_a')).key;
  });
  afterAll(() => api.close());

  const admin = { authorization: `Bearer ${TOKEN}` };
  const cases: [string, string, () => Record<string, string>, string][] = [
    ['an export start', '/v1/exports', () => ({ 'x-api-key': accountKey }), '{"filters":'],
    ['an admin control body', '/_admin/accounts', () => admin, '{"id":"acc_b",'],
    ['an admin load as a JSON array', '/_admin/accounts/acc_a/people', () => admin, '[{"id":"per_1"},'],
  ];

  it.each(cases)('is answered 400 with the envelope for %s, and logs no internal error', async (_name, path, headers, first) => {
    const request = new Request(`http://api.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers() },
      body: brokenBody(first),
      duplex: 'half',
    } as RequestInit);
    const response = await api.fetch(request);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(await response.json()).toEqual({ error: { code: 'bad_request', message: 'The request body could not be read to its end.', status: 400 } });
    expect(internalErrors).toEqual([]);
  });

  it('is answered 400 for an NDJSON load too, and loads none of the lines it did read', async () => {
    const response = await api.fetch(
      new Request('http://api.test/_admin/accounts/acc_a/people', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', ...admin },
        body: brokenBody('{"id":"per_read"}\n{"id":'),
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe('The request body could not be read to its end.');
    expect(internalErrors).toEqual([]);
    const person = await api.fetch(new Request('http://api.test/v1/people/per_read', { headers: { 'x-api-key': accountKey } }));
    expect(person.status).toBe(404);
  });
});
