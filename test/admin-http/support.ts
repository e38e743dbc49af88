import { beforeEach } from 'vitest';
import type { Api } from '../../adapters/node/index.ts';
import { clientFor, type Reply } from '../support/client.ts';
import { serveWorld, type Client, type Target } from '../support/targets.ts';
import type { World } from '../support/world.ts';

/** The admin token the admin suites configure. */
export const TOKEN = 'test-admin-token-0123456789abcdef';

/** A client for admin routes: every request carries the admin token unless `headers` replace it. */
export function adminClient(call: (path: string, init?: RequestInit) => Promise<Response>) {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const send = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> => {
    const init: RequestInit = { method, headers: { ...auth, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await call(path, init);
    return { status: res.status, headers: res.headers, body: (await res.json()) as T };
  };
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => send<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => send<T>('POST', path, body, headers),
    send,
  };
}

/** What an admin suite works with. */
export interface AdminSetup {
  world: World;
  api: Api;
  client: Client;
  admin: ReturnType<typeof adminClient>;
  call: (path: string, init?: RequestInit) => Promise<Response>;
}

/**
 * Serves a fresh world per test with admin over HTTP on (and fault injection when asked), on an
 * adjustable clock over the world's manual one, its baseline saved once loaded (as `serve` does).
 */
export function serveAdminWorld(target: Target, use: (setup: AdminSetup) => void, options: { faults?: boolean; rateLimits?: { accountPerHour?: number; scopedKeyPerHour?: number }; exports?: { pace?: () => Promise<void> } } = {}): void {
  let setup: AdminSetup | undefined;
  serveWorld(
    target,
    { admin: { token: TOKEN }, adjustableClock: true, faults: options.faults, rateLimits: options.rateLimits, exports: options.exports },
    (world, client, call) => {
      setup = { world, api: world.api, client, admin: adminClient(call), call };
      use(setup);
    },
    { per: 'test' },
  );
  // After serveWorld's own hook (hooks run in the order registered): the world is loaded by now.
  beforeEach(async () => {
    await setup!.api.saveBaseline();
  });
}
