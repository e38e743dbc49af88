import type { Admin } from '../admin/admin.ts';
import type { SimulationSwitch } from '../admin/simulation.ts';
import type { FaultInjector } from '../faults/injector.ts';
import type { KeysStore } from '../store/keys-store.ts';
import type { Query } from '../http/query.ts';
import { json } from '../http/respond.ts';
import type { Clock } from '../time/clock.ts';
import type { CoreRequest, Reply } from '../http/reply.ts';

/** What admin handlers work with. */
export interface AdminServices {
  admin: Admin;
  /** Reads a key's description by id (the admin surface revokes; this tells how it stands after). */
  keys: KeysStore;
  clock: Clock;
  /** Back to the baseline: data, keys, limits, exports, webhooks, clock and fault rules. */
  reset(): Promise<void>;
  /** Present when fault injection is on. */
  faults?: FaultInjector;
  /** Waits (bounded) until the read database shows the writes made so far (see Api.catchUpReads). */
  catchUpReads(): Promise<boolean>;
  /** Present when the host runs simulated traffic it lets admins switch. */
  simulation?: SimulationSwitch;
}

/** One admin request, its token already checked. */
export interface AdminContext {
  request: CoreRequest;
  url: URL;
  params: Record<string, string>;
  query: Query;
  services: AdminServices;
}

/** A handler of an admin route. */
export type AdminHandler = (ctx: AdminContext) => Promise<Reply>;

/** An admin route, under `/_admin/`, answered only with the admin token. */
export interface AdminRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  admin: true;
  handler: AdminHandler;
}

/** An admin answer: `{ "data": … }` (and any extra top-level members, such as `nextBefore`). */
export function data(value: unknown, extra: Record<string, unknown> = {}, status = 200): Reply {
  return json({ data: value, ...extra }, status);
}
