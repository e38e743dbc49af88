import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { Receiver } from '../webhooks/receiver.ts';
import { newVisitors } from './new-visitors.ts';
import { sleep, until } from './polling.ts';

type AdminCall = (server: { url: string }, path: string, body: unknown) => Promise<{ status: number }>;

/** Loads `count` new visitors of `acc_demo` through each server at once (people, then their events), each load answered 200. */
export async function loadThroughEach(servers: readonly { url: string }[], admin: AdminCall, tag: string, count: number, domains: readonly string[]): Promise<void> {
  const now = Date.now();
  await Promise.all(
    servers.map(async (server, p) => {
      const { people, events } = newVisitors(tag, p, count, domains, now);
      expect((await admin(server, '/accounts/acc_demo/people', people)).status).toBe(200);
      expect((await admin(server, '/accounts/acc_demo/events', events)).status).toBe(200);
    }),
  );
}

/**
 * Waits until no delivery is pending (`pending()` is 0), a moment more for any second send, and
 * checks the receiver got each of `written` exactly once, every one signed with `secret`.
 */
export async function expectEachDeliveredOnce(receiver: Receiver, written: readonly string[], secret: string, pending: () => Promise<number>): Promise<void> {
  const sent = () => `every delivery to be sent (${receiver.received.length} of ${written.length} received)`;
  await until(async () => ((await pending()) === 0 ? true : undefined), 60_000, sent, 100);
  // A moment more: a second send of any of them would arrive now.
  await sleep(1500);
  const ids = receiver.received.map((r) => r.headers['webhook-id']!);
  expect([...ids].sort()).toEqual([...written].sort());
  const verifier = new Webhook(secret);
  for (const got of receiver.received) expect(verifier.verify(got.body, got.headers)).toMatchObject({ webhookId: got.headers['webhook-id'] });
}
