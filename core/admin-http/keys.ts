import { AdminError } from '../admin/inputs.ts';
import type { KeyInfo } from '../store/keys-store.ts';
import { isoSeconds } from '../time/iso.ts';
import { requireAccount } from './accounts.ts';
import { readObject } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /_admin/accounts/{accountId}/keys`: every key of the account, revoked ones included, without values. */
export async function listKeys(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  await requireAccount(ctx);
  return data((await ctx.services.admin.listKeys(ctx.params.accountId!)).map(keyView));
}

/**
 * `POST /_admin/accounts/{accountId}/keys` `{ domain?, label?, value? }`: issues an account key, or
 * with `domain` that site's scoped key. The answer is the only time the key's value is shown.
 */
export async function issueKey(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { domain, label, value, ...rest } = await readObject(ctx.request, { optional: true });
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AdminError(`${JSON.stringify(unknown).slice(0, 60)} is not a field of a key (domain, label, value)`);
  if (label !== undefined && typeof label !== 'string') throw new AdminError('label must be a string');
  if (value !== undefined && typeof value !== 'string') throw new AdminError('value must be a string');
  if (domain !== undefined && typeof domain !== 'string') throw new AdminError('domain must be a string');
  const options = { label, value };
  const { admin } = ctx.services;
  const accountId = ctx.params.accountId!;
  return data(domain === undefined ? await admin.issueAccountKey(accountId, options) : await admin.issueScopedKey(accountId, domain, options));
}

/** `POST /_admin/keys/{keyId}/rotate`: a new key with the same reach; the old one stops at once. */
export async function rotateKey(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(await ctx.services.admin.rotateKey(ctx.params.keyId!));
}

/** `POST /_admin/keys/{keyId}/revoke`: the key stops working; answers the key as it now stands. */
export async function revokeKey(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { admin } = ctx.services;
  const keyId = ctx.params.keyId!;
  await admin.revokeKey(keyId);
  return data(keyView((await ctx.services.keys.info(keyId))!));
}

/** A key as the admin API shows it: times as ISO 8601. */
function keyView({ keyId, accountId, domain, clientRef, label, createdAt, revokedAt }: KeyInfo) {
  return { keyId, accountId, domain, clientRef, label, createdAt: isoSeconds(createdAt), revokedAt: revokedAt === null ? null : isoSeconds(revokedAt) };
}
