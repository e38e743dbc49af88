import { readObject } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /_admin/faults`: the fault rules in force, in the order they apply. */
export async function listFaultRules(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(ctx.services.faults!.rules.list());
}

/** `POST /_admin/faults` `{ method?, path?, fault?, delayMs?, times? }`: a standing fault for the requests it matches. */
export async function addFaultRule(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(ctx.services.faults!.rules.add(await readObject(ctx.request)));
}

/** `DELETE /_admin/faults`: removes every rule. */
export async function clearFaultRules(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  ctx.services.faults!.rules.clear();
  return data([]);
}
