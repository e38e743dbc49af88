import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { serve, type Api } from '../../adapters/node/index.ts';
import { clientFor } from './client.ts';
import { POSTGRES_BACKENDS, type Backend } from './backends.ts';
import { validating } from './openapi.ts';
import { createWorld, type World } from './world.ts';

/**
 * A way of reaching the API: the suites run once per target. Every response a target's `call`
 * returns has been checked against the OpenAPI document (see `openapi.ts`), so a response that
 * contradicts it fails the test that caused it.
 */
export interface Target {
  name: string;
  /** The database the world lives in; SQLite in memory when absent. */
  backend?: Backend;
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

/** A target whose worlds live on `backend`. */
export function onBackend(target: Target, backend: Backend): Target {
  return { ...target, name: `${target.name} · ${backend.name}`, backend };
}

/**
 * The targets of the suites whose features run on Postgres too: both transports on SQLite in
 * `npm test`; in-process calls on the server in `npm run test:full` (the transport and the
 * database are independent, so Postgres does not run every transport again).
 */
export const MATRIX: Target[] = POSTGRES_BACKENDS.length > 0 ? POSTGRES_BACKENDS.map((backend) => onBackend(inProcess, backend)) : TARGETS;

/** A client over a started target, as the behaviour suites use it. */
export type Client = ReturnType<typeof clientFor>;

/**
 * Registers hooks that build a fresh world, serve it through `target` for the suite, and hand
 * the world, a client and the raw `call` to `use`; the server stops after the suite. With
 * `per: 'test'`, every test gets a world and server of its own (nothing carries over between
 * tests: budgets, clock, jobs). The world lives on the target's backend and is dropped after.
 */
export function serveWorld(
  target: Target,
  options: Parameters<typeof createWorld>[0],
  use: (world: World, client: Client, call: (path: string, init?: RequestInit) => Promise<Response>) => void,
  { per = 'suite' }: { per?: 'suite' | 'test' } = {},
): void {
  let close: (() => Promise<void>) | undefined;
  (per === 'test' ? beforeEach : beforeAll)(async () => {
    const world = await createWorld({ ...options, backend: target.backend });
    const started = await target.start(world.api);
    close = async () => (await started.close(), await world.close());
    use(world, clientFor(started.call), started.call);
  });
  (per === 'test' ? afterEach : afterAll)(async () => {
    await close?.();
    close = undefined;
  });
}
