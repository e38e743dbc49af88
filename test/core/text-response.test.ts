import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazyResponse } from '../../adapters/node/lazy-response.ts';
import { Reply } from '../../core/http/reply.ts';
import { toResponse } from '../../core/http/respond.ts';
import { createWorld, type World } from '../support/world.ts';

/** The account's first page, fetched in-process: it holds the non-ASCII person added below. */
const PAGE = 'http://api.test/v1/people?limit=100';

// The Node adapter's fetch builds its bodies lazily; the core's builds an ordinary Response.
describe.each([
  { kind: 'of the Node adapter (a lazy body)', core: false },
  { kind: 'of the core (an ordinary Response)', core: true },
])('a response of api.fetch read in-process, $kind', ({ core }) => {
  let world: World;
  beforeAll(async () => {
    world = await createWorld();
    // Non-ASCII text takes encoders off their ASCII fast paths: the case worth checking.
    const now = new Date(world.clock.now()).toISOString();
    await world.api.admin.loadPeople('acc_a', [{ id: 'per_zoe', firstName: 'Zoë', location: 'São Paulo 🌎', visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: now, lastSeen: now }] }]);
  });
  afterAll(() => world.api.close());

  const get = async () => {
    const request = new Request(PAGE, { headers: { 'x-api-key': world.accountKey } });
    return core ? toResponse(await world.api.reply(request)) : world.api.fetch(request);
  };

  it('gives text() equal to decoding its body bytes', async () => {
    const bytes = new Uint8Array(await (await get()).arrayBuffer());
    const text = await (await get()).text();
    expect(text).toBe(new TextDecoder().decode(bytes));
    expect(JSON.parse(text).data[0]).toMatchObject({ id: 'per_zoe', firstName: 'Zoë', location: 'São Paulo 🌎' });
  });

  it('gives json() equal to parsing its text', async () => {
    expect(await (await get()).json()).toEqual(JSON.parse(await (await get()).text()));
  });

  it('marks its body used once read, and refuses a second read as any Response does', async () => {
    const res = await get();
    expect(res.bodyUsed).toBe(false);
    await res.text();
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    await expect(res.json()).rejects.toThrow(TypeError);
    await expect(res.arrayBuffer()).rejects.toThrow(TypeError);
  });

  it('refuses text() while a reader holds its body', async () => {
    const res = await get();
    const reader = res.body!.getReader();
    await expect(res.text()).rejects.toThrow(TypeError);
    reader.releaseLock();
  });

  it('streams the same bytes through its body, and its clone reads the same text', async () => {
    const res = await get();
    const copy = res.clone();
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    const streamed = new TextDecoder().decode(Buffer.concat(chunks));
    expect(await copy.text()).toBe(streamed);
  });

  it('gives the same bytes through arrayBuffer(), blob() and bytes(), and each reader marks it read', async () => {
    const text = await (await get()).text();
    const expectedBytes = new TextEncoder().encode(text);
    const readers = [(r: Response) => r.arrayBuffer(), (r: Response) => r.blob().then((b) => b.arrayBuffer()), (r: Response) => r.bytes()];
    for (const read of readers) {
      const res = await get();
      expect(Buffer.from(new Uint8Array(await read(res))).equals(expectedBytes)).toBe(true);
      expect(res.bodyUsed).toBe(true);
      await expect(res.text()).rejects.toThrow(TypeError);
    }
  });

  it('refuses clone() and body reads after text(), as a read Response does', async () => {
    const res = await get();
    await res.text();
    expect(() => res.clone()).toThrow(TypeError);
    await expect(res.blob()).rejects.toThrow(TypeError);
    expect(res.bodyUsed).toBe(true);
  });

  it('keeps its status and headers whatever reads its body', async () => {
    const res = await get();
    const before = [...res.headers];
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect([...res.headers]).toEqual(before);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('reads back as the same Response when passed through new Response(body, init)', async () => {
    const text = await (await get()).text();
    const res = await get();
    const copy = new Response(res.body, res);
    expect(await copy.text()).toBe(text);
    expect(copy.headers.get('x-request-id')).toBe(res.headers.get('x-request-id'));
  });
});

describe('the Node adapter\'s lazy response', () => {
  it('reads a lone surrogate back as U+FFFD, as decoding its bytes does', async () => {
    const text = '{"a":"\ud800"}';
    const reply = () => new Reply(200, text, { 'content-type': 'application/json' });
    expect(await lazyResponse(reply()).text()).toBe(await new Response(text).text());
    expect(await lazyResponse(reply()).text()).toBe('{"a":"\ufffd"}');
  });
});
