import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { serve, type Api } from '../../adapters/node/index.ts';
import { clientFor } from './client.ts';
import { validating } from './openapi.ts';
import { createWorld, type World } from './world.ts';

/**
 * A way of reaching the API: the suites run once per target. Every response a target's `call`
 * returns has been checked against the OpenAPI document (see `openapi.ts`), so a response that
 * contradicts it fails the test that caused it.
 */
export interface Target {
  name: string;
  /** Starts serving the API; `call` sends a request to a path such as `/v1/people`. */
  start(api: Api): Promise<{ call: (path: string, init?: RequestInit) => Promise<Response>; close: () => Promise<void> }>;
}

/** Calls `api.fetch` directly. */
export const inProcess: Target = {
  name: 'in-process',
  async start(api) {
    return { call: validating((path, init) => api.fetch(new Request(`http://api.test${path}`, init))), close: async () => undefined };
  },
};

/** Real HTTP over loopback through the Node adapter. */
export const nodeHttp: Target = {
  name: 'node http',
  async start(api) {
    const server = await serve(api, { port: 0 });
    return { call: validating((path, init) => fetch(`${server.url}${path}`, init)), close: () => server.close() };
  },
};

/** Every target each behaviour suite runs against. */
export const TARGETS: Target[] = [inProcess, nodeHttp];

/** A client over a started target, as the behaviour suites use it. */
export type Client = ReturnType<typeof clientFor>;

/**
 * Registers hooks that build a fresh world, serve it through `target` for the suite, and hand
 * the world, a client and the raw `call` to `use`; the server stops after the suite. With
 * `per: 'test'`, every test gets a world and server of its own (nothing carries over between
 * tests: budgets, clock, jobs).
 */
export function serveWorld(
  target: Target,
  options: Parameters<typeof createWorld>[0],
  use: (world: World, client: Client, call: (path: string, init?: RequestInit) => Promise<Response>) => void,
  { per = 'suite' }: { per?: 'suite' | 'test' } = {},
): void {
  let close: (() => Promise<void>) | undefined;
  (per === 'test' ? beforeEach : beforeAll)(async () => {
    const world = await createWorld(options);
    const started = await target.start(world.api);
    close = started.close;
    use(world, clientFor(started.call), started.call);
  });
  (per === 'test' ? afterEach : afterAll)(async () => {
    await close?.();
    close = undefined;
  });
}
