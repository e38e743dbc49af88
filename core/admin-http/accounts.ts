import { AdminError } from '../admin/inputs.ts';
import { readObject } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /_admin/accounts`: every account, by id. */
export async function listAccounts(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(await ctx.services.admin.listAccounts());
}

/** `POST /_admin/accounts` `{ id?, name }`: creates an account, or returns it when it exists under that name. */
export async function createAccount(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const body = await readObject(ctx.request);
  return data(await ctx.services.admin.createAccount({ id: body.id as string | undefined, name: body.name as string }));
}

/** `GET /_admin/accounts/{accountId}/sites`: the account's client sites. */
export async function listSites(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { admin } = ctx.services;
  await requireAccount(ctx);
  return data(await admin.listSites(ctx.params.accountId!));
}

/** `POST /_admin/accounts/{accountId}/sites` `{ domain, clientRef? }`: registers a site (the same site again is returned as it is). */
export async function registerSite(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const body = await readObject(ctx.request);
  return data(await ctx.services.admin.registerSite(ctx.params.accountId!, { domain: body.domain as string, clientRef: body.clientRef as string | null | undefined }));
}

/** An unknown account is the admin surface's own mistake: 400 with its message, as `api.admin` throws it. */
export async function requireAccount(ctx: AdminContext): Promise<void> {
  if (!(await ctx.services.admin.hasAccount(ctx.params.accountId!))) throw new AdminError(`no account ${ctx.params.accountId}`);
}
