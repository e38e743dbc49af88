import { AdminError } from '../admin/inputs.ts';
import type { WebhookDelivery, WebhookEndpointInput } from '../webhooks/webhook-admin.ts';
import { readObject } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /_admin/accounts/{accountId}/webhooks`: the account's endpoints, oldest first. */
export async function listEndpoints(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { admin } = ctx.services;
  if (!(await admin.hasAccount(ctx.params.accountId!))) throw new AdminError(`no account ${ctx.params.accountId}`);
  return data(await admin.webhooks.list(ctx.params.accountId!));
}

/** `POST /_admin/accounts/{accountId}/webhooks` `{ url, secret?, events?, enabled? }`: a new endpoint, with its secret. */
export async function createEndpoint(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const body = await readObject(ctx.request);
  return data(await ctx.services.admin.webhooks.create(ctx.params.accountId!, body as unknown as WebhookEndpointInput));
}

/** `GET /_admin/webhooks/{endpointId}`: one endpoint, without its secret. */
export async function getEndpoint(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(await ctx.services.admin.webhooks.get(ctx.params.endpointId!));
}

/** `PATCH /_admin/webhooks/{endpointId}` `{ url?, events?, enabled? }`. */
export async function updateEndpoint(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { url, events, enabled, ...rest } = await readObject(ctx.request);
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AdminError(`${JSON.stringify(unknown).slice(0, 60)} cannot be changed (url, events, enabled)`);
  return data(await ctx.services.admin.webhooks.update(ctx.params.endpointId!, { url, events, enabled } as Parameters<typeof ctx.services.admin.webhooks.update>[1]));
}

/** `DELETE /_admin/webhooks/{endpointId}`: the endpoint and its deliveries, sent or not. */
export async function deleteEndpoint(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  await ctx.services.admin.webhooks.delete(ctx.params.endpointId!);
  return data({ id: ctx.params.endpointId!, deleted: true });
}

/** `POST /_admin/webhooks/{endpointId}/rotate-secret` `{ secret?, overlapSeconds? }`: the new secret; the old one signs too during the overlap. */
export async function rotateSecret(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { secret, overlapSeconds, ...rest } = await readObject(ctx.request, { optional: true });
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AdminError(`${JSON.stringify(unknown).slice(0, 60)} is not an option of a rotation (secret, overlapSeconds)`);
  return data(await ctx.services.admin.webhooks.rotateSecret(ctx.params.endpointId!, { secret, overlapSeconds } as { secret?: string; overlapSeconds?: number }));
}

/** `GET /_admin/webhooks/{endpointId}/deliveries?status=&limit=&before=`: the delivery log, newest first. */
export async function listDeliveries(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly(['status', 'limit', 'before']);
  const status = ctx.query.string('status', { pattern: /^(pending|delivered|failed)$/, hint: 'pending, delivered or failed' }) as WebhookDelivery['status'] | undefined;
  const limit = ctx.query.integer('limit', 1, 500, 50);
  const before = ctx.query.string('before', { maxLength: 128 });
  const page = await ctx.services.admin.webhooks.deliveries(ctx.params.endpointId!, { status, limit, before });
  return data(page.deliveries, page.nextBefore === undefined ? {} : { nextBefore: page.nextBefore });
}

/** `GET /_admin/webhook-deliveries/{deliveryId}`: one delivery with its attempts. */
export async function getDelivery(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(await ctx.services.admin.webhooks.delivery(ctx.params.deliveryId!));
}

/** `POST /_admin/webhook-deliveries/{deliveryId}/redeliver`: a failed delivery sent again now, same `webhook-id`. */
export async function redeliver(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(await ctx.services.admin.webhooks.redeliver(ctx.params.deliveryId!));
}

/** `POST /_admin/webhooks/{endpointId}/test` `{ event? }`: a signed test delivery through the outbox, about the account's own data. */
export async function sendTest(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { event, ...rest } = await readObject(ctx.request, { optional: true });
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AdminError(`${JSON.stringify(unknown).slice(0, 60)} is not an option of a test event (event)`);
  if (event !== undefined && typeof event !== 'string') throw new AdminError('event must be a string: person.identified or person.activity');
  return data(await ctx.services.admin.webhooks.sendTest(ctx.params.endpointId!, { event: event as WebhookDelivery['event'] | undefined }));
}
