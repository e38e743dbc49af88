import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../adapters/node/index.ts';
import { ContractViolation } from '../support/openapi.ts';
import { TARGETS } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

type Call = (path: string, init?: RequestInit) => Promise<Response>;

/** A copy of `response` with its JSON body, status or headers changed. */
async function altered(response: Response, change: { body?: (body: any) => unknown; status?: number; headers?: (h: Headers) => void }): Promise<Response> {
  const text = await response.text();
  const headers = new Headers(response.headers);
  change.headers?.(headers);
  const body = change.body ? JSON.stringify(change.body(JSON.parse(text))) : text;
  return new Response(body, { status: change.status ?? response.status, headers });
}

/**
 * Broken variants of the API's handlers, each keyed by the path it misanswers: what the hook
 * must catch, however the answer reaches the test.
 */
const VARIANTS: Record<string, (res: Response) => Promise<Response>> = {
  '/v1/people/per_001': (res) => altered(res, { body: (b) => ({ ...b, data: { ...b.data, email: 42 } }) }),
  '/v1/companies/co_01': (res) => altered(res, { status: 418 }),
  '/v1/stats': (res) => altered(res, { headers: (h) => h.delete('x-request-id') }),
  '/v1/people/per_002': (res) => altered(res, { headers: (h) => h.set('content-type', 'text/plain') }),
  '/v1/companies/co_missing': (res) => altered(res, { body: (b) => ({ error: { ...b.error, code: 'forbidden' } }) }),
  '/v1/nowhere': (res) => altered(res, { status: 200, body: () => ({ data: [] }) }),
};

/** The API with the variants above in place of its own answers on those paths. */
function broken(api: Api): Api {
  return {
    ...api,
    fetch: async (request) => {
      const response = await api.fetch(request);
      const variant = VARIANTS[new URL(request.url).pathname];
      return variant ? variant(response) : response;
    },
  };
}

describe.each(TARGETS)('the response validation hook ($name)', (target) => {
  let world: World;
  let call: Call;
  let close: () => Promise<void>;
  const get = (path: string) => call(path, { headers: { 'x-api-key': world.accountKey } });

  beforeAll(async () => {
    world = await createWorld();
    ({ call, close } = await target.start(broken(world.api)));
  });
  afterAll(() => close());

  it('catches a person whose email is a number, naming the operation, the status and the JSON pointer', async () => {
    const failure = get('/v1/people/per_001');
    await expect(failure).rejects.toBeInstanceOf(ContractViolation);
    await expect(failure).rejects.toThrow(/GET \/v1\/people\/\{id\} \(getPerson\) answered 200.*at "\/data\/email" must be string,null/);
  });

  it('catches a status the operation does not document', async () => {
    await expect(get('/v1/companies/co_01')).rejects.toThrow(/GET \/v1\/companies\/\{id\} \(getCompany\) answered 418.*not documented/);
  });

  it('catches a missing required header', async () => {
    await expect(get('/v1/stats')).rejects.toThrow(/GET \/v1\/stats \(getStats\) answered 200.*required header X-Request-Id is missing/);
  });

  it('catches a content type the operation does not document', async () => {
    await expect(get('/v1/people/per_002')).rejects.toThrow(/getPerson\) answered 200.*content type "text\/plain" is not documented/);
  });

  it('catches an error code the status does not allow there', async () => {
    await expect(get('/v1/companies/co_missing')).rejects.toThrow(/getCompany\) answered 404.*at "\/error\/code" must be equal to one of the allowed values/);
  });

  it('catches an unknown path answering anything but the 404 envelope', async () => {
    await expect(get('/v1/nowhere')).rejects.toThrow(/GET \/v1\/nowhere \(no such path\) answered 200.*must answer 404/);
  });

  it('lets answers that keep to the document through, their bodies unread for the test', async () => {
    const response = await get('/v1/people/per_003');
    expect(response.status).toBe(200);
    expect((await response.json()).data.id).toBe('per_003');
    const notFound = await get('/v1/people/nobody');
    expect((await notFound.json()).error.code).toBe('not_found');
  });
});
