import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextResponse } from '../../core/http/text-response.ts';
import { createWorld, type World } from '../support/world.ts';

/** The account's first page, fetched in-process: it holds the non-ASCII person added below. */
const PAGE = 'http://api.test/v1/people?limit=100';

describe('a response of api.fetch read in-process', () => {
  let world: World;
  beforeAll(async () => {
    world = await createWorld();
    // Non-ASCII text takes encoders off their ASCII fast paths: the case worth checking.
    const now = new Date(world.clock.now()).toISOString();
    await world.api.admin.loadPeople('acc_a', [{ id: 'per_zoe', firstName: 'Zoë', location: 'São Paulo 🌎', visits: [{ domain: 'alpha.example', visitCount: 1, firstSeen: now, lastSeen: now }] }]);
  });
  afterAll(() => world.api.close());

  const get = () => world.api.fetch(new Request(PAGE, { headers: { 'x-api-key': world.accountKey } }));

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
});

describe('TextResponse', () => {
  it('reads a lone surrogate back as U+FFFD, as decoding its bytes does', async () => {
    const text = '{"a":"\ud800"}';
    expect(await new TextResponse(text, {}).text()).toBe(await new Response(text).text());
    expect(await new TextResponse(text, {}).text()).toBe('{"a":"\ufffd"}');
  });
});
