import type { CompanyInput, EventInput, PersonInput } from '../admin/inputs.ts';
import { onLine, readItems } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** `POST /_admin/accounts/{accountId}/companies`: companies as a JSON array or NDJSON, inserted or replaced by id, in one transaction. */
export async function loadCompanies(ctx: AdminContext): Promise<Reply> {
  return load(ctx, 'companies', (accountId, items) => ctx.services.admin.loadCompanies(accountId, items as unknown as CompanyInput[]));
}

/** `POST /_admin/accounts/{accountId}/people`: people with their visits, inserted or replaced by id, in one transaction. */
export async function loadPeople(ctx: AdminContext): Promise<Reply> {
  return load(ctx, 'people', (accountId, items) => ctx.services.admin.loadPeople(accountId, items as unknown as PersonInput[]));
}

/** `POST /_admin/accounts/{accountId}/events`: events, an `eventId` already loaded skipped, in one transaction. */
export async function loadEvents(ctx: AdminContext): Promise<Reply> {
  return load(ctx, 'events', (accountId, items) => ctx.services.admin.loadEvents(accountId, items as unknown as EventInput[]));
}

/** Reads the items, loads them through `api.admin` (its validation and errors), and names the NDJSON line of a bad item. */
async function load(ctx: AdminContext, kind: string, into: (accountId: string, items: Record<string, unknown>[]) => Promise<number>): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { items, lines } = await readItems(ctx.request, kind);
  try {
    const loaded = await into(ctx.params.accountId!, items);
    return data({ received: items.length, loaded });
  } catch (error) {
    throw onLine(error, lines);
  }
}
